"""run.py TEST_FILE MODULE... - run one pytest file of the Python package
(python/dsana) from the build tree with Debian's /usr/bin/python3; exit 77
(a skip in CTest) naming the Debian package when a module is missing."""
import importlib
import os
import sys

DEBIAN = {"pytest": "python3-pytest", "numpy": "python3-numpy", "scipy": "python3-scipy",
          "networkx": "python3-networkx", "sklearn": "python3-sklearn"}


def main():
    test, modules = sys.argv[1], sys.argv[2:]
    for name in ["pytest"] + modules:
        try:
            importlib.import_module(name)
        except ImportError:
            print(f"skip: no {name} (install the Debian package {DEBIAN.get(name, name)})")
            return 77
    try:
        import dsana  # noqa: F401
    except ImportError as e:
        print(f"skip: the dsana package is not built in PYTHONPATH={os.environ.get('PYTHONPATH', '')}: {e}")
        return 77
    import pytest

    here = os.path.dirname(os.path.abspath(__file__))
    return pytest.main(["-q", "-p", "no:cacheprovider", "-W", "error::pytest.PytestUnraisableExceptionWarning",
                        os.path.join(here, test)])


if __name__ == "__main__":
    sys.exit(main())
