"""The title rule: which S2AG titles carry MathML (dropped) and how other titles are rendered.

S2AG copies titles from publisher feeds, so some carry markup. The paper removes only titles with
MathML; everything else stays, rendered as plain text. Precisely, in this order:

1. **Entities.** ``&lt; &gt; &quot; &apos; &#39; &#x27; &#34; &#x22;`` and finally ``&amp;`` are
   replaced by their characters (``&amp;`` last, so ``&amp;lt;`` becomes the text ``&lt;``, not
   ``<``). Other entities (``&nbsp;``, numeric references to other characters) stay as they are:
   they are rare in titles and harmless as text. Unescaping comes first so that escaped markup
   (``&lt;mml:math&gt;``, ``&lt;i&gt;``) obeys the same rules as literal markup.
2. **MathML.** A title is a MathML title when it holds (case-insensitively) an element of the
   MathML vocabulary, with or without a namespace prefix — ``<math``, ``<mml:mi>``, ``</mrow>``,
   ``<msub …>`` … (``MATHML_ELEMENTS``), the JATS formula wrappers ``<inline-formula``,
   ``<tex-math``, ``<disp-formula`` (which hold MathML or TeX), or a MathML namespace
   declaration (``xmlns…="…MathML"``). The element name must end at white space, ``/`` or ``>``,
   so ``<mathematics>`` or ``<min>`` is not MathML. Such titles are dropped (``mathml_title``).
3. **Inline tags.** A well-formed opening, closing or empty tag whose name is a known inline HTML
   or JATS element (``INLINE_TAGS``: ``<i>``, ``</sub>``, ``<scp>``, ``<span class="x">``,
   ``<br/>`` …; case-insensitive, except that one-letter names must be lower case, because
   ``Option<U>`` is a type parameter) is removed, its text kept: ``CO<sub>2</sub>`` →
   ``CO2``; line-break tags (``<br/>``, ``<break/>``) become a space. Anything else that looks
   like a tag is text and stays: ``Vec<T>``, ``Option<U>``, ``A < b > c`` (a space after ``<``),
   ``<italics>`` (not a known name). ``<b>`` itself *is* the bold tag and is removed.
4. White space at both ends is trimmed again (removing ``<i> </i>`` may leave some); a title that
   is empty after all this counts as an empty title.

A title is *cleaned* when this rendering differs from the (trimmed) record title; the snapshot
manifest counts the eligible papers whose title was cleaned.

Everything is a DuckDB expression (``replace``/``regexp_matches``/``regexp_replace``, RE2 syntax)
so the rule runs vectorised inside the snapshot query, and the expensive part runs only for titles
that contain ``<`` or ``&`` at all.
"""

from __future__ import annotations

from graphniah.ingest.s2ag.sql import sql_str, strip_ws_sql

# Entities unescaped (in this order; "&amp;" last, see the module docstring).
ENTITIES: tuple[tuple[str, str], ...] = (
    ("&lt;", "<"),
    ("&gt;", ">"),
    ("&quot;", '"'),
    ("&#34;", '"'),
    ("&#x22;", '"'),
    ("&apos;", "'"),
    ("&#39;", "'"),
    ("&#x27;", "'"),
    ("&amp;", "&"),
)

MATHML_ELEMENTS: tuple[str, ...] = (
    "math", "semantics", "annotation", "annotation-xml",
    "mi", "mn", "mo", "ms", "mtext", "mspace", "mglyph",
    "mrow", "mfrac", "msqrt", "mroot", "mstyle", "merror", "mpadded", "mphantom", "mfenced", "menclose",
    "msub", "msup", "msubsup", "munder", "mover", "munderover", "mmultiscripts", "mprescripts",
    "mtable", "mtr", "mlabeledtr", "mtd", "maligngroup", "malignmark", "mstack", "mlongdiv",
    "msgroup", "msrow", "mscarries", "mscarry", "msline", "maction",
    # JATS wrappers of formulas (MathML or TeX inside).
    "inline-formula", "disp-formula", "tex-math",
)  # fmt: skip

INLINE_TAGS: tuple[str, ...] = (
    # HTML phrasing elements seen in titles.
    "a", "abbr", "b", "big", "br", "cite", "code", "del", "dfn", "em", "font", "i", "ins", "kbd",
    "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "tt", "u", "var", "wbr",
    # JATS / publisher formatting elements.
    "bold", "italic", "monospace", "overline", "roman", "sans-serif", "sc", "scp", "smallcaps",
    "styled-content", "named-content", "underline",
)  # fmt: skip
# Line breaks separate words: they become a space instead of nothing.
BREAK_TAGS: tuple[str, ...] = ("br", "break")


def _alternation(names: tuple[str, ...]) -> str:
    # Longest names first, so a name is never cut short by one of its prefixes ("msub" vs "msubsup").
    return "|".join(sorted((n.replace("-", "\\-") for n in names), key=lambda n: (-len(n), n)))


# MathML: an element of the vocabulary (optionally prefixed: "mml:mi"), or a MathML namespace.
MATHML_PATTERN = (
    "(?i)</?(?:[a-z][a-z0-9._-]*:)?(?:" + _alternation(MATHML_ELEMENTS) + ")[\\s/>]"
    "|xmlns(?::[a-z0-9._-]+)?\\s*=\\s*[\"'][^\"']*mathml"
)
# An inline tag: <name>, <name attr…>, </name>, <name/> with a known inline name.
# Names of one letter match in lower case only: <I>, <B>, <U>, <S> are as likely type parameters
# ("Option<U>") as shouted tags; longer names match in any case (<EM>, <Sub>).
_ONE_LETTER = tuple(n for n in INLINE_TAGS if len(n) == 1)
INLINE_TAG_PATTERN = (
    "</?(?:(?i:" + _alternation(tuple(n for n in INLINE_TAGS if len(n) > 1)) + ")|[" + "".join(_ONE_LETTER) + "])(?:\\s[^<>]*)?/?>"
)
BREAK_TAG_PATTERN = "(?i)</?(?:" + _alternation(BREAK_TAGS) + ")(?:\\s[^<>]*)?/?>"


def unescape_sql(expr: str) -> str:
    """``expr`` with the entities of ``ENTITIES`` replaced (a chain of plain ``replace`` calls)."""
    for entity, char in ENTITIES:
        expr = f"replace({expr}, {sql_str(entity)}, {sql_str(char)})"
    return expr


def has_markup_sql(expr: str) -> str:
    """Whether ``expr`` may need the rule at all (cheap substring tests; NULL-safe)."""
    return f"coalesce(contains({expr}, '<') OR contains({expr}, '&'), false)"


def is_mathml_sql(unescaped: str) -> str:
    """Whether an (unescaped) title holds MathML."""
    return f"(contains({unescaped}, '<') AND regexp_matches({unescaped}, {sql_str(MATHML_PATTERN)}))"


def render_sql(unescaped: str) -> str:
    """An (unescaped) title with inline tags removed (line breaks become spaces), then trimmed."""
    spaced = f"regexp_replace({unescaped}, {sql_str(BREAK_TAG_PATTERN)}, ' ', 'g')"
    return strip_ws_sql(f"regexp_replace({spaced}, {sql_str(INLINE_TAG_PATTERN)}, '', 'g')")


def rule_json() -> dict[str, object]:
    """The rule as recorded in snapshot manifests."""
    return {
        "entities": [e for e, _ in ENTITIES],
        "mathml_pattern": MATHML_PATTERN,
        "inline_tag_pattern": INLINE_TAG_PATTERN,
        "break_tag_pattern": BREAK_TAG_PATTERN,
    }
