"""The dataset card: a Markdown template under pipelines/ whose every field is one computed fact."""

from __future__ import annotations

import pytest

import graphniah.dataset.export as export_mod
from graphniah.dataset.card import CARD_TEMPLATE, card_fields, card_template, render_card
from graphniah.errors import GraphNIAHError
from graphniah.resources import resource_dir


def _facts(exported, monkeypatch, tmp_path):
    seen = []
    real = export_mod.render_card

    def keep(facts):
        seen.append(facts)
        return real(facts)

    monkeypatch.setattr(export_mod, "render_card", keep)
    export_mod.export_suite(exported.examples, tmp_path / "ds", suite=exported.name, snapshots_root=exported.suite.snapshots)
    assert len(seen) == 1
    return seen[0]


def test_the_template_ships_with_the_pipelines_and_names_exactly_the_computed_facts(exported, monkeypatch, tmp_path):
    path, template = card_template()
    assert path == resource_dir("pipelines") / CARD_TEMPLATE and path.name == "dataset-card.md"
    facts = _facts(exported, monkeypatch, tmp_path)
    assert set(template.get_identifiers()) == set(card_fields(facts))
    card = render_card(facts)
    assert "${" not in card and card == (tmp_path / "ds" / "README.md").read_text()
    assert card.startswith("---\n") and f"# GraphNIAH: suite `{exported.name}`" in card


def test_a_template_field_the_exporter_does_not_fill_is_an_error_naming_the_template(exported, monkeypatch, tmp_path):
    facts = _facts(exported, monkeypatch, tmp_path)
    folder = tmp_path / "pipelines"
    folder.mkdir()
    (folder / CARD_TEMPLATE).write_text("# ${suite}\n\n${no_such_fact}\n")
    monkeypatch.setattr("graphniah.dataset.card.resource_dir", lambda name: folder)
    with pytest.raises(GraphNIAHError, match=rf"{folder / CARD_TEMPLATE}: the dataset card template names the field 'no_such_fact'"):
        render_card(facts)
    (folder / CARD_TEMPLATE).write_text("costs $5\n")
    with pytest.raises(GraphNIAHError, match=r"not a valid card template .*write a literal \$ as \$\$"):
        render_card(facts)


def test_the_card_names_the_data_source_and_its_licence(exported, monkeypatch, tmp_path):
    import dataclasses

    facts = _facts(exported, monkeypatch, tmp_path)
    assert {s.source for s in facts.snapshots} == {"s2ag"}
    s2ag = render_card(facts)
    assert "| S2AG | " in s2ag and "ODC-BY" in s2ag and "OpenAlex" not in s2ag and "\nlicense: odc-by\n" in s2ag
    openalex = dataclasses.replace(facts, snapshots=tuple(s.model_copy(update={"source": "openalex"}) for s in facts.snapshots))
    card = render_card(openalex)
    assert "| OpenAlex | " in card and "CC0" in card and "Semantic Scholar" not in card and "\nlicense: cc0-1.0\n" in card
    assert "every earlier public version OpenAlex records for it" in card
