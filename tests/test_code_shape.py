"""The product's code keeps a shape a newcomer can read: no function of
games/ or yachtsite/ runs over 50 lines (def line to last line, docstring
and comments included). Migrations are generated and left out."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("games", "yachtsite")
MOST_LINES = 50


def _functions(path: Path) -> list[tuple[str, int, int]]:
    """Each function of ``path`` (nested ones too): its qualified name, the
    line it starts on and its length in lines."""
    found: list[tuple[str, int, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                assert child.end_lineno is not None
                name = f"{prefix}{child.name}"
                found.append((name, child.lineno, child.end_lineno - child.lineno + 1))
                visit(child, f"{name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(path.read_text(), filename=str(path)), "")
    return found


def _product_files() -> list[Path]:
    return [
        path
        for package in PRODUCT
        for path in sorted((ROOT / package).rglob("*.py"))
        if "migrations" not in path.relative_to(ROOT).parts
    ]


def test_the_product_is_read_from_both_packages():
    files = {path.relative_to(ROOT).parts[0] for path in _product_files()}
    assert files == set(PRODUCT)


def test_a_function_is_measured_from_its_def_line_to_its_last_line(tmp_path):
    source = tmp_path / "shape.py"
    source.write_text(
        "class Box:\n"
        "    def lid(self):\n"
        '        """Two lines of docstring\n'
        '        count."""\n'
        "        def hinge():\n"
        "            return 1\n"
        "        return hinge()\n"
    )
    assert _functions(source) == [("Box.lid", 2, 6), ("Box.lid.hinge", 5, 2)]


def test_no_function_of_the_product_is_over_fifty_lines():
    too_long = [
        f"{path.relative_to(ROOT)}:{line} {name} ({length} lines)"
        for path in _product_files()
        for name, line, length in _functions(path)
        if length > MOST_LINES
    ]
    assert not too_long, "split these along a seam that reads well:\n" + "\n".join(too_long)
