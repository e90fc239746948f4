from assignments.cli import main

raise SystemExit(main())
