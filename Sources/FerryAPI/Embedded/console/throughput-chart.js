// Bytes moved per minute over the last hour as an SVG bar chart: attributes only, no inline style
// (the CSP forbids it), colours from the stylesheet so dark mode applies.

import * as format from './format.js';

const svgNS = 'http://www.w3.org/2000/svg';

function svg(tag, attributes = {}, text) {
  const element = document.createElementNS(svgNS, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/** minutes: [{start, bytes}], oldest first. */
export function throughputChart(minutes) {
  // Wide, and scaled with the page's width (CSS height: auto), so bars fill the card at any width.
  const width = 1200;
  const height = 200;
  const left = 90;
  const bottom = 20;
  const peak = Math.max(1, ...minutes.map((m) => m.bytes));
  const chart = svg('svg', {class: 'chart', id: 'throughput-chart', viewBox: `0 0 ${width} ${height}`, role: 'img',
    'aria-label': `Bytes moved per minute over the last hour; the busiest minute moved ${format.bytes(peak)}`});
  chart.append(svg('line', {class: 'axis', x1: left, y1: height - bottom, x2: width, y2: height - bottom}));
  chart.append(svg('text', {x: 4, y: 18}, format.bytes(peak)));
  chart.append(svg('text', {x: 4, y: height - bottom}, '0'));
  chart.append(svg('text', {x: left, y: height - 4}, '60 min ago'));
  chart.append(svg('text', {x: width - 40, y: height - 4}, 'now'));
  const slot = (width - left) / Math.max(1, minutes.length);
  minutes.forEach((minute, index) => {
    const barHeight = Math.round((minute.bytes / peak) * (height - bottom - 16));
    const bar = svg('rect', {class: 'bar', x: (left + index * slot + 1).toFixed(1), y: height - bottom - barHeight,
      width: Math.max(1, slot - 2).toFixed(1), height: barHeight});
    bar.append(svg('title', {}, `${new Date(minute.start).toLocaleTimeString()}: ${format.bytes(minute.bytes)}`));
    chart.append(bar);
  });
  return chart;
}
