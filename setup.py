"""Build hook: a wheel carries the top-level corpus/, app.py, pages/ and the inspector's
.streamlit/config.toml as package data.

They stay at the top of the checkout (the design card's layout); an installed ragaudit
finds its copies under ragaudit/_shipped/ (ragaudit/paths.py). Everything else about the
package is declared in pyproject.toml.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
SHIPPED = Path("ragaudit") / "_shipped"  # paths.SHIPPED, inside the package


def shipped_files(root: Path = ROOT) -> list[Path]:
    """The files a wheel carries from the checkout's top level, relative to `root`."""
    files = [root / "app.py", root / ".streamlit" / "config.toml"]
    files += sorted((root / "pages").glob("*.py"))
    files += sorted(path for path in (root / "corpus").rglob("*") if path.is_file())
    return [path.relative_to(root) for path in files]


class BuildPyWithShipped(build_py):
    """build_py, then a copy of shipped_files() into the built package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode:  # an editable install reads the checkout's own files
            return
        for relative in shipped_files():
            target = Path(self.build_lib) / SHIPPED / relative
            self.mkpath(str(target.parent))
            self.copy_file(str(ROOT / relative), str(target))


if __name__ == "__main__":
    setup(cmdclass={"build_py": BuildPyWithShipped})
