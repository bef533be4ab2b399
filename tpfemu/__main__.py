"""``python -m tpfemu``: the same as the ``tpfemu`` command."""

from tpfemu.cli import main

if __name__ == "__main__":
    main()
