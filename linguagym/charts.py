"""Charts as self-contained SVG text, written directly: grouped bars (with intervals and a reference line) and
points joined by lines (with intervals) over named categories.

Why not a plotting library: the reports need a few simple, fixed chart shapes, and drawing them through
matplotlib cost seconds per report (importing it, then laying out every figure), more than everything else a
cached run does. Writing the shapes ourselves takes milliseconds, needs no dependency, and gives byte-identical
output for the same input (no dates, no generated ids), which keeps reports diffable.

Conventions: coordinates are in SVG user units, which render as CSS pixels at natural size (``width`` and
``height`` equal the ``viewBox``, so the chart scales down cleanly with ``max-width: 100%``). Missing values
(``None`` or NaN) are left out, never drawn as zero. Every text is escaped, and every mark carries a
``<title>`` so a browser shows its exact value on hover. Colours are the Okabe-Ito palette, distinguishable
with the common colour-vision deficiencies; line series also differ by marker shape.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#000000", "#F0E442")
FONT = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"
TICK_SIZE = 12  # tick labels, category labels, legend
LABEL_SIZE = 13  # axis label
TITLE_SIZE = 14
_INK = "#1f2328"
_MUTED = "#59636e"
_GRID = "#e5e7eb"
_DASH = ' stroke-dasharray="5 4"'  # the reference line
_MAX_LABEL = 40  # characters of a rotated category label before it is cut (full text in its tooltip)
_ROT = math.sqrt(0.5)  # sin and cos of the 45 degree rotation of long category labels
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")  # not allowed in XML 1.0
_MARKERS = ("circle", "square", "triangle", "diamond", "triangle-down")
_DASHES = ("", "6 3", "2 3", "8 3 2 3", "12 4")  # line patterns, for series that share a colour (``LineStyle``)

Value = float | None
Span = tuple[float, float] | None
Swatch = Callable[[int, float, float], str]  # draws the legend key of series i centred on (x, y)


@dataclass(frozen=True)
class LineStyle:
    """How a line series looks: its colour (a ``PALETTE`` index) and its marker shape and dash pattern (``mark``,
    an index into both). Series ``k`` is ``LineStyle(k, k)`` unless told otherwise: a solid line, colour and
    marker ``k``. Overlaid plots give every series of one model one colour, every condition one marker and dash."""
    colour: int
    mark: int
    dashed: bool = False


# ---------------------------------------------------------------------------------------------- text and numbers

def escape(text: object) -> str:
    """``text`` made safe inside SVG/XML text and attribute values; characters XML forbids become U+FFFD."""
    safe = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _NOT_XML.sub("\ufffd", safe.replace('"', "&quot;").replace("'", "&#39;"))


def text_width(text: str, size: float) -> float:
    """An estimate of the rendered width of ``text`` in a sans-serif font (wide East Asian characters count
    double); used for layout only, so it errs on the wide side."""
    units = sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.58 for c in text)
    return units * size


def is_missing(value: Value) -> bool:
    return value is None or value != value or math.isinf(value)


def nice_ticks(low: float, high: float, target: int = 5) -> list[float]:
    """About ``target`` evenly spaced round numbers (steps of 1, 2, 2.5 or 5 times a power of ten) covering
    ``low`` to ``high``."""
    if not (math.isfinite(low) and math.isfinite(high)):
        raise ValueError(f"tick range must be finite, got {low}..{high}")
    if high < low:
        low, high = high, low
    if high == low:
        low, high = (low - 1, high + 1) if low else (0.0, 1.0)
    raw = (high - low) / max(1, target)
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw * (1 - 1e-9))
    first = math.floor(low / step + 1e-9)
    last = math.ceil(high / step - 1e-9)
    return [_clean(k * step) for k in range(first, last + 1)]


def _clean(value: float) -> float:
    """``value`` without float noise (0.30000000000000004 -> 0.3), and never -0.0."""
    return round(value, 12) + 0.0


def _decimals(values: Sequence[float]) -> int:
    """The fewest decimals that write every value exactly (up to 6)."""
    return next((d for d in range(7) if all(abs(round(v, d) - v) < 1e-9 for v in values)), 6)


def tick_labels(ticks: Sequence[float], *, percent: bool = False) -> list[str]:
    shown = [_clean(t * 100) if percent else t for t in ticks]
    places = _decimals(shown)
    return [f"{v:.{places}f}{'%' if percent else ''}" for v in shown]


def value_text(value: float, *, percent: bool = False) -> str:
    """A value as a tooltip shows it: three decimals, or a percentage with one."""
    return f"{value * 100:.1f}%" if percent else f"{value:.3f}"


def _n(number: float) -> str:
    """A coordinate: one decimal, no trailing zeros, so output is compact and stable."""
    text = f"{number:.1f}"
    text = text[:-2] if text.endswith(".0") else text
    return "0" if text == "-0" else text


def _text(x: float, y: float, content: str, *, size: float = TICK_SIZE, anchor: str = "start", fill: str = _INK,
          extra: str = "", tooltip: str | None = None) -> str:
    title = f"<title>{escape(tooltip)}</title>" if tooltip else ""
    return (f'<text x="{_n(x)}" y="{_n(y)}" font-size="{size}" text-anchor="{anchor}" fill="{fill}"{extra}>'
            f"{escape(content)}{title}</text>")


def _line(x1: float, y1: float, x2: float, y2: float, stroke: str, width: float = 1.0, extra: str = "") -> str:
    return (f'<line x1="{_n(x1)}" y1="{_n(y1)}" x2="{_n(x2)}" y2="{_n(y2)}" stroke="{stroke}" '
            f'stroke-width="{width}"{extra}/>')


# ---------------------------------------------------------------------------------------------- layout pieces

@dataclass(frozen=True)
class _Frame:
    """The plotting area: pixel box and the value range of its vertical axis."""

    left: float
    top: float
    width: float
    height: float
    low: float
    high: float

    @property
    def bottom(self) -> float:
        return self.top + self.height

    def y(self, value: float) -> float:
        """Pixel row of ``value``; values outside the axis are held at its edge."""
        clamped = min(max(value, self.low), self.high)
        return self.bottom - (clamped - self.low) / (self.high - self.low) * self.height


@dataclass(frozen=True)
class _Axis:
    """The vertical axis: its value range, ticks and their labels."""

    low: float
    high: float
    ticks: list[float]
    labels: list[str]


def _value_axis(values: Sequence[float], *, y_max: float | None, include_zero: bool, percent: bool) -> _Axis:
    low = min(values, default=0.0)
    high = max(values, default=1.0)
    if include_zero:
        low, high = min(low, 0.0), max(high, 0.0)
    if y_max is not None:
        high = y_max
    if high <= low:
        high = low + 1.0
    ticks = nice_ticks(low, high)
    top = ticks[-1] if y_max is None else y_max
    ticks = [t for t in ticks if t <= top + 1e-9]
    return _Axis(ticks[0], top, ticks, tick_labels(ticks, percent=percent))


def _y_axis(frame: _Frame, axis: _Axis, y_label: str) -> list[str]:
    parts = []
    for tick, label in zip(axis.ticks, axis.labels, strict=True):
        y = frame.y(tick)
        parts.append(_line(frame.left, y, frame.left + frame.width, y, _GRID))
        parts.append(_line(frame.left - 4, y, frame.left, y, _MUTED))
        parts.append(_text(frame.left - 7, y + TICK_SIZE * 0.35, label, anchor="end", fill=_MUTED))
    parts.append(_line(frame.left, frame.top, frame.left, frame.bottom, _MUTED))
    middle = frame.top + frame.height / 2
    parts.append(_text(0, 0, y_label, size=LABEL_SIZE, anchor="middle",
                       extra=f' transform="translate({_n(6 + LABEL_SIZE)},{_n(middle)}) rotate(-90)"'))
    return parts


@dataclass(frozen=True)
class _Labels:
    """How the category labels under the axis are set: ``flat`` (as given, one text per line), ``wrapped`` (at
    spaces) or ``rotated`` (45 degrees, one line, cut at ``_MAX_LABEL`` characters)."""

    mode: str
    lines: list[list[str]]
    height: float
    overhang: float  # how far the first labels reach left of the plotting area


def _wrap(label: str, width: float) -> list[str] | None:
    """``label`` broken at spaces into lines no wider than ``width``; None where a word alone is too wide."""
    lines: list[str] = []
    for paragraph in label.split("\n"):
        current = ""
        for word in paragraph.split():
            if text_width(word, TICK_SIZE) > width:
                return None
            candidate = f"{current} {word}".strip()
            if current and text_width(candidate, TICK_SIZE) > width:
                lines.append(current)
                candidate = word
            current = candidate
        lines.append(current)
    return lines


def _label_layout(labels: Sequence[str], band: float) -> _Labels:
    room = band - 4
    line_height = TICK_SIZE * 1.25
    given = [label.split("\n") for label in labels]
    if all(text_width(line, TICK_SIZE) <= room for lines in given for line in lines):
        return _Labels("flat", given, 8 + line_height * max(map(len, given), default=1), 0.0)
    wrapped = [lines for label in labels if (lines := _wrap(label, room)) is not None and len(lines) <= 3]
    if len(wrapped) == len(labels):
        return _Labels("wrapped", wrapped, 8 + line_height * max(map(len, wrapped)), 0.0)
    cut = [[_cut(" ".join(label.split()))] for label in labels]
    widths = [text_width(lines[0], TICK_SIZE) for lines in cut]
    overhang = max((w * _ROT - (i + 0.5) * band for i, w in enumerate(widths)), default=0.0)
    return _Labels("rotated", cut, 10 + (max(widths, default=0.0) + TICK_SIZE) * _ROT, max(0.0, overhang))


def _cut(label: str) -> str:
    return label if len(label) <= _MAX_LABEL else label[: _MAX_LABEL - 1] + "\u2026"


def _category_axis(frame: _Frame, labels: Sequence[str], layout: _Labels, band: float) -> list[str]:
    parts = [_line(frame.left, frame.bottom, frame.left + frame.width, frame.bottom, _MUTED)]
    for i, (label, lines) in enumerate(zip(labels, layout.lines, strict=True)):
        x = frame.left + (i + 0.5) * band
        parts.append(_line(x, frame.bottom, x, frame.bottom + 4, _MUTED))
        if layout.mode == "rotated":
            whole, y = " ".join(label.split()), frame.bottom + 10
            parts.append(_text(x, y, lines[0], anchor="end", tooltip=whole if lines[0] != whole else None,
                               extra=f' transform="rotate(-45 {_n(x)} {_n(y)})" dominant-baseline="middle"'))
            continue
        for k, line in enumerate(lines):
            parts.append(_text(x, frame.bottom + 6 + TICK_SIZE * (1 + 1.25 * k), line, anchor="middle"))
    return parts


def _legend_rows(names: Sequence[str], width: float) -> list[list[tuple[int, str, float]]]:
    """Legend entries (index, name, entry width) flowed into rows no wider than ``width``."""
    rows: list[list[tuple[int, str, float]]] = [[]]
    used = 0.0
    for i, name in enumerate(names):
        entry = 18 + text_width(name, TICK_SIZE) + 16
        if rows[-1] and used + entry > width:
            rows.append([])
            used = 0.0
        rows[-1].append((i, name, entry))
        used += entry
    return rows


def _legend(names: Sequence[str], x: float, y: float, width: float, swatch: Swatch) -> tuple[list[str], float]:
    """Legend parts starting at (x, y) and the height they take; ``swatch(index, x, y)`` draws one key."""
    rows = _legend_rows(names, width)
    parts = []
    for r, row in enumerate(rows):
        cursor, middle = x, y + r * 18 + 9
        for index, name, entry in row:
            parts.append(swatch(index, cursor, middle))
            parts.append(_text(cursor + 18, middle + TICK_SIZE * 0.35, name))
            cursor += entry
    return [f'<g class="legend">{"".join(parts)}</g>'], 18.0 * len(rows) + 6


def _bar_swatch(index: int, x: float, y: float) -> str:
    return f'<rect x="{_n(x)}" y="{_n(y - 6)}" width="12" height="12" fill="{colour(index)}"/>'


def _line_swatch(index: int, x: float, y: float, style: LineStyle | None = None) -> str:
    style = style or LineStyle(index, index)
    return _line(x, y, x + 14, y, colour(style.colour), 1.6, _dash(style)) + _marker(style.mark, x + 7, y,
                                                                                     fill=colour(style.colour))


def _dash(style: LineStyle) -> str:
    pattern = _DASHES[style.mark % len(_DASHES)] if style.dashed else ""
    return f' stroke-dasharray="{pattern}"' if pattern else ""


def colour(index: int) -> str:
    return PALETTE[index % len(PALETTE)]


def _document(width: float, height: float, label: str, parts: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_n(width)}" height="{_n(height)}" '
            f'viewBox="0 0 {_n(width)} {_n(height)}" role="img" aria-label="{escape(label)}" '
            f'font-family="{escape(FONT)}" font-size="{TICK_SIZE}">'
            f'<rect width="100%" height="100%" fill="#ffffff"/>' + "".join(parts) + "</svg>")


@dataclass(frozen=True)
class _Layout:
    frame: _Frame
    labels: _Labels
    band: float
    width: float
    height: float
    heading: list[str]


def _layout(categories: Sequence[str], names: Sequence[str], axis: _Axis, *, band: float, min_plot: float,
            plot_height: float, title: str | None, swatch: Swatch) -> _Layout:
    """Place title, legend (when there is more than one series), vertical axis, plotting area and category
    labels; returns the frame and the heading parts (title and legend)."""
    plot_width = max(min_plot, band * len(categories))
    band = plot_width / max(1, len(categories))
    labels = _label_layout(categories, band)
    tick_width = max((text_width(t, TICK_SIZE) for t in axis.labels), default=0.0)
    left = max(6 + LABEL_SIZE + 10 + tick_width + 8, labels.overhang + 8)
    width = left + plot_width + 16
    if title:
        width = max(width, text_width(title, TITLE_SIZE) + 16)
    if len(names) > 1:  # a legend entry too long for the chart widens it rather than spilling out
        width = max(width, left + 8 + max(18 + text_width(name, TICK_SIZE) + 16 for name in names))
    heading, top = [], 10.0
    if title:
        heading.append(_text(8, top + TITLE_SIZE, title, size=TITLE_SIZE, extra=' font-weight="600"'))
        top += TITLE_SIZE + 10
    if len(names) > 1:
        legend, legend_height = _legend(names, left, top, width - left - 8, swatch)
        heading += legend
        top += legend_height
    top += 6 if len(names) > 1 else 10
    frame = _Frame(left, top, plot_width, plot_height, axis.low, axis.high)
    return _Layout(frame, labels, band, width, top + plot_height + labels.height + 8, heading)


# ---------------------------------------------------------------------------------------------- grouped bars

def grouped_bars(categories: list[str], series: dict[str, list[float | None]], *, y_label: str,
                 y_max: float | None = None, intervals: dict[str, list[tuple[float, float] | None]] | None = None,
                 reference: float | None = None, title: str | None = None, percent: bool = False) -> str:
    """Vertical bars, one group per category and one bar per series in each group, as an ``<svg>`` string.

    ``series[name][i]`` is the value of series ``name`` at ``categories[i]`` (None or NaN: no bar);
    ``intervals[name][i]`` an optional (low, high) drawn as an error bar; ``reference`` a dashed horizontal line
    (chance, a baseline); ``y_max`` fixes the top of the axis (e.g. 1 for accuracies), else it is the next round
    number above the data; ``percent`` shows fractions (0-1) as percentages on the axis and in tooltips.
    Bars start at zero; the axis takes in negative values when there are any.
    """
    intervals = intervals or {}
    _check_lengths(categories, series, intervals)
    data = [v for values in series.values() for v in values if v is not None and not is_missing(v)]
    data += [x for spans in intervals.values() for span in spans if span for x in span if not is_missing(x)]
    data += [] if reference is None else [reference]
    axis = _value_axis(data, y_max=y_max, include_zero=True, percent=percent)
    names = list(series)
    band = max(28.0, 10.0 * len(names) + 8.0)  # keeps 34 suites x 3 models about as wide as a page
    layout = _layout(categories, names, axis, band=band, min_plot=320, plot_height=240, title=title,
                     swatch=_bar_swatch)
    frame = layout.frame
    parts = [*layout.heading, *_y_axis(frame, axis, y_label)]
    parts += _bars(frame, categories, series, intervals, layout.band, percent)
    if reference is not None:
        y = frame.y(reference)
        parts.append(f'<g class="reference"><title>reference: {escape(value_text(reference, percent=percent))}'
                     f"</title>{_line(frame.left, y, frame.left + frame.width, y, '#6e7781', 1.2, _DASH)}</g>")
    parts += _category_axis(frame, categories, layout.labels, layout.band)
    return _document(layout.width, layout.height, title or y_label, parts)


def _check_lengths(categories: Sequence[str], series: Mapping[str, Sequence],
                   intervals: Mapping[str, Sequence]) -> None:
    for kind, table in (("series", series), ("intervals", intervals)):
        for name, values in table.items():
            if len(values) != len(categories):
                raise ValueError(f"{kind} {name!r} has {len(values)} values for {len(categories)} categories")
    unknown = set(intervals) - set(series)
    if unknown:
        raise ValueError(f"intervals for unknown series: {', '.join(sorted(unknown))}")


def _bars(frame: _Frame, categories: Sequence[str], series: Mapping[str, Sequence[Value]],
          intervals: Mapping[str, Sequence[Span]], band: float, percent: bool) -> list[str]:
    count = max(1, len(series))
    bar = min(band * 0.8 / count, 48.0)
    zero = frame.y(0.0)
    parts = []
    for k, (name, values) in enumerate(series.items()):
        group = []
        spans = intervals.get(name) or [None] * len(values)
        for i, (value, span) in enumerate(zip(values, spans, strict=True)):
            x = frame.left + (i + 0.5) * band + (k - count / 2) * bar
            if value is None or is_missing(value):
                group.append(_no_value(x + bar / 2, zero, bar, f"{name} \u00b7 {categories[i]}: no value"))
                continue
            y = frame.y(value)
            tooltip = f"{name} \u00b7 {categories[i]}: {value_text(value, percent=percent)}"
            if span and not any(is_missing(s) for s in span):
                tooltip += f" [{value_text(span[0], percent=percent)}, {value_text(span[1], percent=percent)}]"
            group.append(f'<rect class="bar" x="{_n(x + bar * 0.04)}" y="{_n(min(y, zero))}" '
                         f'width="{_n(bar * 0.92)}" height="{_n(abs(zero - y))}" fill="{colour(k)}">'
                         f"<title>{escape(tooltip)}</title></rect>")
            if span and not any(is_missing(s) for s in span):
                group.append(_interval(frame, x + bar / 2, span, min(4.0, bar * 0.3), "#333333"))
        parts.append(f'<g class="series" data-series="{escape(name)}">{"".join(group)}</g>')
    return parts


def _no_value(x: float, baseline: float, bar: float, tooltip: str) -> str:
    """A faint "n/a" where a bar is missing, so that no value is not mistaken for zero; upright where the bar
    is too narrow for it."""
    turn = "" if bar >= 18 else f' transform="rotate(-90 {_n(x)} {_n(baseline - 4)})"'
    anchor, y = ("middle", baseline - 4) if not turn else ("start", baseline - 4 + 3)
    return _text(x, y, "n/a", size=9, anchor=anchor, fill=_MUTED, extra=f' class="missing"{turn}', tooltip=tooltip)


def _interval(frame: _Frame, x: float, span: tuple[float, float], cap: float, stroke: str) -> str:
    low, high = frame.y(min(span)), frame.y(max(span))
    return (f'<path class="interval" d="M{_n(x)} {_n(low)}V{_n(high)}M{_n(x - cap)} {_n(low)}H{_n(x + cap)}'
            f'M{_n(x - cap)} {_n(high)}H{_n(x + cap)}" stroke="{stroke}" stroke-width="1.1" fill="none"/>')


# ---------------------------------------------------------------------------------------------- points and lines

def line_chart(categories: list[str], series: dict[str, list[float | None]], *, y_label: str,
               intervals: dict[str, list[tuple[float, float] | None]] | None = None, title: str | None = None,
               include_zero: bool = True, percent: bool = False, styles: Mapping[str, LineStyle] | None = None,
               min_plot: float = 300, plot_height: float = 200) -> str:
    """Points joined by lines over categories (one line per series), with optional intervals, as ``<svg>``.

    A missing value (None or NaN) leaves a gap: the line breaks there rather than dropping to zero. A ``\\n``
    in a category label starts a new line of that label. Series are nudged sideways a little so that their
    intervals do not hide one another, and differ by marker shape as well as colour. ``styles[name]`` sets a
    series' colour apart from its marker and dash (several models' conditions on one axis: ``LineStyle``).
    ``min_plot`` and ``plot_height``: the least width and the height of
    the plotting area (many series on one axis need more room than the default).
    """
    intervals = intervals or {}
    _check_lengths(categories, series, intervals)
    data = [v for values in series.values() for v in values if v is not None and not is_missing(v)]
    data += [x for spans in intervals.values() for span in spans if span for x in span if not is_missing(x)]
    axis = _value_axis(data, y_max=None, include_zero=include_zero, percent=percent)
    names = list(series)
    widest = max((text_width(line, TICK_SIZE) for c in categories for line in c.split("\n")), default=0.0)
    band = min(max(56.0, widest + 14), 150.0)
    look = [(styles or {}).get(name) or LineStyle(k, k) for k, name in enumerate(names)]
    layout = _layout(categories, names, axis, band=band, min_plot=min_plot, plot_height=plot_height, title=title,
                     swatch=lambda i, x, y: _line_swatch(i, x, y, look[i]))
    frame = layout.frame
    parts = [*layout.heading, *_y_axis(frame, axis, y_label)]
    nudge = min(5.0, layout.band * 0.3 / max(1, len(names)))
    for k, (name, values) in enumerate(series.items()):
        xs = [frame.left + (i + 0.5) * layout.band + (k - (len(names) - 1) / 2) * nudge for i in range(len(values))]
        spans = intervals.get(name) or [None] * len(values)
        parts.append(_line_series(frame, look[k], name, categories, xs, values, spans, percent))
    parts += _category_axis(frame, categories, layout.labels, layout.band)
    return _document(layout.width, layout.height, title or y_label, parts)


def _line_series(frame: _Frame, style: LineStyle, name: str, categories: Sequence[str], xs: Sequence[float],
                 values: Sequence[Value], spans: Sequence[Span], percent: bool) -> str:
    path, pen_down, marks = [], False, []
    for i, (x, value, span) in enumerate(zip(xs, values, spans, strict=True)):
        if value is None or is_missing(value):
            pen_down = False
            continue
        y = frame.y(value)
        path.append(f"{'L' if pen_down else 'M'}{_n(x)} {_n(y)}")
        pen_down = True
        tooltip = f"{name} \u00b7 {categories[i].replace(chr(10), ' ')}: {value_text(value, percent=percent)}"
        if span and not any(is_missing(s) for s in span):
            marks.append(_interval(frame, x, span, 3.0, colour(style.colour)))
            tooltip += f" [{value_text(span[0], percent=percent)}, {value_text(span[1], percent=percent)}]"
        marks.append(f'<g class="point">{_marker(style.mark, x, y, fill=colour(style.colour))}'
                     f'<title>{escape(tooltip)}</title></g>')
    line = (f'<path class="line" d="{"".join(path)}" stroke="{colour(style.colour)}" stroke-width="1.6" fill="none" '
            f'stroke-linejoin="round"{_dash(style)}/>') if path else ""
    return f'<g class="series" data-series="{escape(name)}">{line}{"".join(marks)}</g>'


def _marker(index: int, x: float, y: float, size: float = 3.6, *, fill: str | None = None) -> str:
    """The marker of series ``index`` centred on (x, y): circle, square, triangle, diamond, triangle down; in the
    series' colour unless ``fill`` says otherwise."""
    shape, fill = _MARKERS[index % len(_MARKERS)], fill or colour(index)
    if shape == "circle":
        return f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{_n(size)}" fill="{fill}"/>'
    if shape == "square":
        s = size * 0.9
        return f'<rect x="{_n(x - s)}" y="{_n(y - s)}" width="{_n(2 * s)}" height="{_n(2 * s)}" fill="{fill}"/>'
    offsets = {"triangle": ((0, -1.2), (1.1, 0.8), (-1.1, 0.8)),
               "diamond": ((0, -1.3), (1.1, 0), (0, 1.3), (-1.1, 0)),
               "triangle-down": ((0, 1.2), (1.1, -0.8), (-1.1, -0.8))}[shape]
    points = " ".join(f"{_n(x + dx * size)},{_n(y + dy * size)}" for dx, dy in offsets)
    return f'<polygon points="{points}" fill="{fill}"/>'
