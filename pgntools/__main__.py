from pgntools.cli import main

main()
