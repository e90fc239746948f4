# OS programs some tests need (included by the Makefile).

# Chromium and chromedriver from apt for the formgrader browser test (CI calls it; needs root or sudo).
browser:
	.ci/install-browser

# LibreOffice Calc from apt for the CSV test that opens exports in a real spreadsheet (CI calls it).
spreadsheet:
	.ci/install-spreadsheet
