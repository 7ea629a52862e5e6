from cabinet.main import main

if __name__ == "__main__":  # not when a worker process (bots) imports the main module again
    raise SystemExit(main())
