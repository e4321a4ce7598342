from aidlc.cli import main

main()
