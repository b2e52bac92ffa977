"""The text package's top level: its public names resolve to their definitions, loaded only when asked for."""

from __future__ import annotations

import json
import subprocess
import sys
import types

import pytest

import graphniah.text


def test_every_public_name_resolves_to_what_its_module_defines():
    for name in graphniah.text.__all__:
        value = getattr(graphniah.text, name)
        assert not isinstance(value, types.ModuleType), name
        home = sys.modules[graphniah.text._HOMES[name]]
        assert getattr(home, name) is value, name
    assert sorted(graphniah.text.__all__) == sorted(graphniah.text._HOMES)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = graphniah.text.no_such_name


def test_importing_the_package_loads_none_of_its_modules():
    probe = "import json, sys, graphniah.text; print(json.dumps(sorted(m for m in sys.modules if m.startswith('graphniah.'))))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    loaded = json.loads(done.stdout)
    assert "graphniah.text" in loaded
    assert [m for m in loaded if m.startswith("graphniah.text.")] == []
