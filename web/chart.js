// A day-by-day series as an SVG line chart: its own scale, the first and last day under it, the
// highest value beside it. Drawn with attributes only (the page's CSP allows no inline styles).
import { numbers } from "/i18n.js";

const SVG = "http://www.w3.org/2000/svg";
const WIDTH = 600;
const HEIGHT = 140;
const LEFT = 56;
const BOTTOM = 22;

function node(name, attributes = {}, text) {
  const element = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) element.setAttribute(key, value);
  if (text !== undefined) element.textContent = text;
  return element;
}

/// `values`: [{date, value}] oldest first.
export function lineChart(values, label, className) {
  const chart = node("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": label, class: `chart ${className}` });
  chart.append(node("title", {}, label));
  if (values.length === 0) return chart;
  const highest = Math.max(1, ...values.map((day) => day.value));
  const plotWidth = WIDTH - LEFT - 8;
  const plotHeight = HEIGHT - BOTTOM - 8;
  const x = (index) => LEFT + (values.length === 1 ? plotWidth / 2 : (index * plotWidth) / (values.length - 1));
  const y = (value) => 8 + plotHeight - (value * plotHeight) / highest;
  chart.append(
    node("line", { x1: LEFT, y1: y(0), x2: WIDTH - 8, y2: y(0), class: "axis" }),
    node("line", { x1: LEFT, y1: y(highest), x2: WIDTH - 8, y2: y(highest), class: "grid-line" }),
    node("text", { x: LEFT - 6, y: y(highest) + 4, "text-anchor": "end", class: "tick" }, numbers.format(highest)),
    node("text", { x: LEFT - 6, y: y(0) + 4, "text-anchor": "end", class: "tick" }, "0"),
    node("text", { x: LEFT, y: HEIGHT - 4, class: "tick" }, values[0].date),
    node("text", { x: WIDTH - 8, y: HEIGHT - 4, "text-anchor": "end", class: "tick" }, values[values.length - 1].date),
    node("polyline", { points: values.map((day, index) => `${x(index).toFixed(1)},${y(day.value).toFixed(1)}`).join(" "), class: "series" }),
  );
  for (const [index, day] of values.entries()) {
    const point = node("circle", { cx: x(index).toFixed(1), cy: y(day.value).toFixed(1), r: 2.5, class: "point" });
    point.append(node("title", {}, `${day.date}: ${numbers.format(day.value)}`));
    chart.append(point);
  }
  return chart;
}
