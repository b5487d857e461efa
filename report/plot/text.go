package plot

import (
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// measuringText is a plain-text handler that remembers the width of every
// string it has measured. gonum lays a plot out several times per draw
// (data area, axes, padding, legend) and measures every tick label and
// legend entry each time; font.Face.Width walks the glyphs with a fresh
// buffer per call, which made text measurement half the cost of a figure.
// One handler serves one figure build, so the cache is not shared state.
type measuringText struct {
	fonts   *font.Cache
	widths  map[widthKey]vg.Length
	extents map[font.Font]font.Extents
	// drawn, when set (tests), receives the box of every line drawn, in
	// the canvas's coordinates, and the number of the Draw call that drew
	// it: the lines of one text are spaced by the font size, less than
	// their boxes' height, and must not count as overlapping each other.
	drawn func(call int, line string, box vg.Rectangle)
	calls int
}

type widthKey struct {
	txt string
	fnt font.Font
}

func newMeasuringText() *measuringText {
	return &measuringText{
		fonts:   plot.DefaultTextHandler.Cache(),
		widths:  make(map[widthKey]vg.Length),
		extents: make(map[font.Font]font.Extents),
	}
}

func (m *measuringText) Cache() *font.Cache { return m.fonts }

func (m *measuringText) Extents(fnt font.Font) font.Extents {
	if e, ok := m.extents[fnt]; ok {
		return e
	}
	face := m.fonts.Lookup(fnt, fnt.Size)
	e := face.Extents()
	m.extents[fnt] = e
	return e
}

func (m *measuringText) Lines(txt string) []string {
	return strings.Split(strings.TrimRight(txt, "\n"), "\n")
}

func (m *measuringText) width(txt string, fnt font.Font) vg.Length {
	k := widthKey{txt, fnt}
	if w, ok := m.widths[k]; ok {
		return w
	}
	face := m.fonts.Lookup(fnt, fnt.Size)
	w := face.Width(txt)
	m.widths[k] = w
	return w
}

// Box is text.Plain's: the width of one line, the font's ascent and
// descent.
func (m *measuringText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	e := m.Extents(fnt)
	return m.width(txt, fnt), e.Ascent, e.Descent
}

// Draw places the lines as text.Plain does, with remembered widths.
func (m *measuringText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	txt = strings.TrimRight(txt, "\n")
	if txt == "" {
		return
	}
	face := m.fonts.Lookup(sty.Font, sty.Font.Size)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
	}
	sin, cos := math.Sincos(sty.Rotation)
	pt.X, pt.Y = pt.Y*vg.Length(sin)+pt.X*vg.Length(cos), pt.Y*vg.Length(cos)-pt.X*vg.Length(sin)
	lines := m.Lines(txt)
	m.calls++
	pt.Y += sty.Height(txt)*vg.Length(sty.YAlign) - m.Extents(sty.Font).Ascent
	for i, line := range lines {
		x := vg.Length(sty.XAlign) * m.width(line, sty.Font)
		n := vg.Length(len(lines) - i)
		at := pt.Add(vg.Point{X: x, Y: n * sty.Font.Size})
		c.FillString(face, at, line)
		if m.drawn != nil {
			m.drawn(m.calls, line, m.box(line, sty, at, sin, cos))
		}
	}
	if sty.Rotation != 0 {
		c.Pop()
	}
}

// box is where a line drawn at pt (in the frame rotated by the style's
// rotation, whose sine and cosine are given) lies on the canvas.
func (m *measuringText) box(line string, sty text.Style, pt vg.Point, sin, cos float64) vg.Rectangle {
	e := m.Extents(sty.Font)
	w := m.width(line, sty.Font)
	corners := []vg.Point{{X: pt.X, Y: pt.Y - e.Descent}, {X: pt.X + w, Y: pt.Y - e.Descent}, {X: pt.X, Y: pt.Y + e.Ascent}, {X: pt.X + w, Y: pt.Y + e.Ascent}}
	r := vg.Rectangle{Min: vg.Point{X: vg.Length(math.Inf(1)), Y: vg.Length(math.Inf(1))}, Max: vg.Point{X: vg.Length(math.Inf(-1)), Y: vg.Length(math.Inf(-1))}}
	for _, c := range corners {
		x, y := c.X*vg.Length(cos)-c.Y*vg.Length(sin), c.X*vg.Length(sin)+c.Y*vg.Length(cos)
		r.Min.X, r.Min.Y = min(r.Min.X, x), min(r.Min.Y, y)
		r.Max.X, r.Max.Y = max(r.Max.X, x), max(r.Max.Y, y)
	}
	return r
}

// wrap breaks each line of txt at spaces so that none is wider than width
// in fnt (a word wider than width stays whole on its own line).
func (m *measuringText) wrap(txt string, fnt font.Font, width vg.Length) string {
	var out []string
	for _, line := range m.Lines(txt) {
		cur := ""
		for _, word := range strings.Fields(line) {
			next := word
			if cur != "" {
				next = cur + " " + word
			}
			if cur != "" && m.width(next, fnt) > width {
				out = append(out, cur)
				next = word
			}
			cur = next
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}
