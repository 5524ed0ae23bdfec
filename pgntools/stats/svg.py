"""The report's charts as inline SVG, written here (no plotting library: a few hundred bytes a
chart, no extra dependency, nothing to load from the network, and every bar and point an element
the tests can count: ``rect.bar``, ``circle.point``).

Each chart is an ``<svg data-chart=NAME>`` with a title, axis labels with their units, and its
numbers written on it (each bar's value; each point's in its tooltip)."""
from __future__ import annotations

import math
from html import escape
from typing import List, Optional, Sequence, Tuple

WIDTH = 680
FONT = 12


def _fmt(value: float) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.2f}" if abs(value) < 10 else f"{value:,.1f}"
    return f"{int(value):,}"


def _svg(name: str, title: str, height: int, body: List[str]) -> str:
    return (f'<svg data-chart="{escape(name)}" role="img" aria-label="{escape(title)}" '
            f'viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" xmlns="http://www.w3.org/2000/svg">'
            f'<text class="title" x="{WIDTH / 2}" y="18" text-anchor="middle">{escape(title)}</text>'
            + "".join(body) + "</svg>")


def bars(name: str, title: str, items: Sequence[Tuple[str, float]], value_label: str) -> str:
    """Horizontal bars, one per (label, value), each with its value written after it."""
    label_width = min(260, 20 + 7 * max((len(label) for label, _ in items), default=4))
    top, row = 32, 20
    height = top + row * len(items) + 34
    plot = WIDTH - label_width - 80
    most = max((v for _, v in items), default=0) or 1
    body = []
    for i, (label, value) in enumerate(items):
        y = top + i * row
        w = max(plot * value / most, 0.5 if value else 0)
        short = label if len(label) <= 36 else label[:35] + "…"
        body.append(f'<text x="{label_width - 6}" y="{y + 14}" text-anchor="end">{escape(short)}</text>'
                    f'<rect class="bar" x="{label_width}" y="{y + 3}" width="{w:.1f}" height="{row - 6}">'
                    f'<title>{escape(label)}: {_fmt(value)}</title></rect>'
                    f'<text class="value" x="{label_width + w + 4:.1f}" y="{y + 14}">{_fmt(value)}</text>')
    body.append(f'<text class="axis" x="{label_width + plot / 2}" y="{height - 8}" text-anchor="middle">'
                f'{escape(value_label)}</text>')
    return _svg(name, title, height, body)


def histogram(name: str, title: str, counts: Sequence[int], edges: Sequence[float], x_label: str,
              y_label: str = "games", open_ends: bool = True) -> str:
    """Vertical bars over bins (bin i: [edges[i], edges[i+1])); ``open_ends``: the first and last
    bins also hold what lies beyond them (their labels say ≤ and ≥). Ticks under some bins."""
    left, right, top, bottom = 64, 16, 32, 48
    height = 260
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    most = _nice_top(max(counts, default=0) or 1)
    n = len(counts)
    bar_w = plot_w / max(n, 1)
    body = [_y_axis(left, top, plot_h, most, y_label)]
    for i, count in enumerate(counts):
        x = left + i * bar_w
        h = plot_h * count / most
        low, high = edges[i], edges[i + 1]
        label = f"{_fmt(low)}–{_fmt(high)}"
        if open_ends and i == 0:
            label = f"< {_fmt(high)}"
        elif open_ends and i == n - 1:
            label = f"≥ {_fmt(low)}"
        body.append(f'<rect class="bar" x="{x + 0.5:.1f}" y="{top + plot_h - h:.1f}" width="{max(bar_w - 1, 0.5):.1f}" '
                    f'height="{h:.1f}"><title>{escape(label)}: {_fmt(count)}</title></rect>')
    step = max(1, math.ceil(n / 10))
    for i in range(0, n + 1, step):
        x = left + i * bar_w
        body.append(f'<text class="tick" x="{x:.1f}" y="{top + plot_h + 14}" text-anchor="middle">{_fmt(edges[i])}</text>')
    body.append(f'<text class="axis" x="{left + plot_w / 2}" y="{height - 10}" text-anchor="middle">{escape(x_label)}</text>')
    return _svg(name, title, height, body)


def _nice_top(most: int) -> int:
    """The axis' top: the least 4 × step ≥ most with a round whole step (1, 2, 2.5, 5 × 10^k), so
    the five ticks read 0, 25, 50, 75, 100 rather than 0, 22, 44, 66, 88 or 20.8."""
    step = most / 4
    magnitude = 10 ** math.floor(math.log10(step)) if step >= 1 else 1
    for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * magnitude >= step and float(m * magnitude).is_integer():
            return int(4 * m * magnitude)
    return int(40 * magnitude)


def _y_axis(left: int, top: int, plot_h: float, most: float, label: str, low: float = 0) -> str:
    parts = [f'<line class="frame" x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}"/>'
             f'<line class="frame" x1="{left}" y1="{top + plot_h}" x2="{WIDTH - 16}" y2="{top + plot_h}"/>']
    for k in range(5):
        value = low + (most - low) * k / 4
        y = top + plot_h - plot_h * k / 4
        parts.append(f'<text class="tick" x="{left - 4}" y="{y + 4:.1f}" text-anchor="end">{_fmt(value)}</text>')
        if k:
            parts.append(f'<line class="grid" x1="{left}" y1="{y:.1f}" x2="{WIDTH - 16}" y2="{y:.1f}"/>')
    parts.append(f'<text class="axis" transform="translate(14,{top + plot_h / 2}) rotate(-90)" '
                 f'text-anchor="middle">{escape(label)}</text>')
    return "".join(parts)


def _step(span: float, ticks: int = 5) -> float:
    """A round tick step (1, 2, 2.5 or 5 × 10^k) giving at most ``ticks`` intervals over span."""
    raw = span / ticks if span > 0 else 1
    magnitude = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 2.5, 5, 10):
        if m * magnitude >= raw:
            return m * magnitude
    return 10 * magnitude


def round_up(value: float, ticks: int = 4) -> float:
    """The least multiple of a round step (``ticks`` intervals) at or above value: an axis' end."""
    step = _step(value, ticks)
    return math.ceil(value / step - 1e-9) * step


class Series:
    """A line chart's series: points (x, y, tooltip), drawn as circles, a line, or both; ``band``:
    (x, low, high) shaded behind."""

    def __init__(self, label: str, points: Sequence[Tuple[float, float, str]], css: str, dots: bool = True,
                 line: bool = False, band: Optional[Sequence[Tuple[float, float, float]]] = None):
        self.label, self.points, self.css, self.dots, self.line, self.band = label, points, css, dots, line, band


def lines(name: str, title: str, series: Sequence[Series], x_range: Tuple[float, float],
          y_range: Tuple[float, float], x_label: str, y_label: str) -> str:
    """Points and lines on linear axes, with a legend line under the title."""
    left, right, top, bottom = 64, 16, 48, 48
    height = 300
    plot_w, plot_h = WIDTH - left - right, height - top - bottom
    (x0, x1), (y0, y1) = x_range, y_range

    def at(x: float, y: float) -> str:
        px = left + plot_w * (x - x0) / ((x1 - x0) or 1)
        py = top + plot_h - plot_h * (y - y0) / ((y1 - y0) or 1)
        return f"{px:.1f},{py:.1f}"

    body = [_y_axis(left, top, plot_h, y1, y_label, low=y0)]
    step = _step(x1 - x0)
    x = math.ceil(x0 / step) * step
    while x <= x1 + 1e-9:  # ticks at round values (0, 20, 40 ...; -800, -400, 0 ...)
        px = left + plot_w * (x - x0) / ((x1 - x0) or 1)
        body.append(f'<text class="tick" x="{px:.1f}" y="{top + plot_h + 14}" text-anchor="middle">{_fmt(round(x, 2))}</text>')
        x += step
    legend_x = left
    for s in series:
        body.append(f'<g class="{s.css}"><rect class="key" x="{legend_x}" y="27" width="12" height="8"/>'
                    f'<text x="{legend_x + 16}" y="35">{escape(s.label)}</text></g>')
        legend_x += 30 + 7 * len(s.label)
        if s.band:
            outline = [at(x, hi) for x, _, hi in s.band] + [at(x, lo) for x, lo, _ in reversed(s.band)]
            body.append(f'<polygon class="{s.css} band" points="{" ".join(outline)}"/>')
        if s.line and len(s.points) > 1:
            body.append(f'<polyline class="{s.css} line" points="{" ".join(at(x, y) for x, y, _ in s.points)}"/>')
        if s.dots:
            for x, y, tip in s.points:
                cx, cy = at(x, y).split(",")
                body.append(f'<circle class="{s.css} point" cx="{cx}" cy="{cy}" r="3"><title>{escape(tip)}</title></circle>')
    body.append(f'<text class="axis" x="{left + plot_w / 2}" y="{height - 10}" text-anchor="middle">{escape(x_label)}</text>')
    return _svg(name, title, height, body)
