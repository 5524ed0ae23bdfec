"""The commands of the command line, one module each (pgntools.cli's group imports only the one
that runs: building every command's options would cost each run ~3 ms of start-up). Each module
defines one click.Command; pgntools.cli.COMMANDS names them and their short help for --help."""
