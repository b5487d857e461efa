// Package plot draws a workload's bills as PNG or SVG figures: the Size
// bill's staircase of replicas and its rounds against overload, and the Time
// bill's hunt and its place on the Φ curve.
//
// Like every renderer in report/, it formats the contract.Report contract and
// computes nothing: every number it draws comes from the workload, the Φ
// curve and its closed forms included (TimeBill.PhiCurve), so a saved report
// redraws its own figures.
package plot

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/capreport/capreport/contract"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Output formats.
const (
	FormatSVG = "svg"
	FormatPNG = "png"
)

// Figure kinds, also the suffix of Figure.Name.
const (
	KindSize   = "size"
	KindTime   = "time"
	KindPhi    = "phi"
	KindRounds = "rounds"
)

// DPI is the resolution of PNG figures.
const DPI = 96

// Figure is one rendered plot.
type Figure struct {
	// Name is a file base name safe for any filesystem:
	// "<namespace>-<Kind>-<name>-<kind>.<format>".
	Name string
	// Kind is KindSize, KindTime, KindPhi or KindRounds.
	Kind string
	// Title is the figure's title (its first line), for alt text and captions.
	Title string
	// Data is the encoded image.
	Data []byte
}

// ForWorkload renders every figure the workload has data for, in the order
// size, rounds, time, phi. A workload with no bill yields no figures and no
// error.
func ForWorkload(w contract.Workload, format string) ([]Figure, error) {
	if err := checkFormat(format); err != nil {
		return nil, err
	}
	var out []Figure
	for _, fn := range []func(contract.Workload, string) (Figure, error){Size, Rounds, Time, Phi} {
		f, err := fn(w, format)
		if errors.Is(err, ErrNoData) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// Size draws the Size bill's staircase: replicas ordered, ready and needed
// over time for each design overload that carries a timeline, with the scale
// events, the round boundaries and the moment capacity met demand; the
// waiting time is on a second panel.
func Size(w contract.Workload, format string) (Figure, error) {
	return render(w, format, KindSize, buildSize)
}

// Time draws the Time bill's run: replicas and backlog over the last part of
// the run, with the pods needed and the band of ±15 % around it (a swing
// wider than 30 % of the need is a hunt, Definition 5).
func Time(w contract.Workload, format string) (Figure, error) {
	return render(w, format, KindTime, buildTime)
}

// Phi draws the Φ curve over windows of 0.05 to 1000 dead times with its
// closed-form approximations, the ceiling e, the region where the loop
// rests, and the workload's own point.
func Phi(w contract.Workload, format string) (Figure, error) {
	return render(w, format, KindPhi, buildPhi)
}

// Rounds draws rounds to capacity against the overload k: the simulated
// count and Proposition 2's bound, on a log axis of k.
func Rounds(w contract.Workload, format string) (Figure, error) {
	return render(w, format, KindRounds, buildRounds)
}

func checkFormat(format string) error {
	switch format {
	case FormatSVG, FormatPNG:
		return nil
	}
	return fmt.Errorf("plot: unknown format %q: use %q or %q", format, FormatSVG, FormatPNG)
}

func render(w contract.Workload, format, kind string, build func(contract.Workload) (*figure, error)) (Figure, error) {
	if err := checkFormat(format); err != nil {
		return Figure{}, err
	}
	fig, err := build(w)
	if err != nil {
		return Figure{}, fmt.Errorf("plot %s of %s: %w", kind, workloadID(w), err)
	}
	data, err := fig.encode(format)
	if err != nil {
		return Figure{}, fmt.Errorf("plot %s of %s: %w", kind, workloadID(w), err)
	}
	return Figure{
		Name:  FileName(w, kind, format),
		Kind:  kind,
		Title: firstLine(fig.title()),
		Data:  data,
	}, nil
}

// encode draws the figure's panels, stacked top to bottom with their data
// areas aligned, and encodes the canvas.
func (f *figure) encode(format string) ([]byte, error) {
	f.fitLegend()
	var buf bytes.Buffer
	switch format {
	case FormatSVG:
		c := vgsvg.New(f.width, f.height)
		f.draw(draw.New(c))
		if _, err := c.WriteTo(&buf); err != nil {
			return nil, fmt.Errorf("encode svg: %w", err)
		}
	case FormatPNG:
		c := vgimg.NewWith(vgimg.UseWH(f.width, f.height), vgimg.UseDPI(DPI))
		f.draw(draw.New(c))
		if err := encodePNG(&buf, c.Image()); err != nil {
			return nil, fmt.Errorf("encode png: %w", err)
		}
	default:
		return nil, checkFormat(format)
	}
	return buf.Bytes(), nil
}

// FileName is the figure's file name: "<ns>-<Kind>-<name>-<kind>.<format>",
// every character outside [A-Za-z0-9._-] replaced by '_', empty parts left
// out.
func FileName(w contract.Workload, kind, format string) string {
	var parts []string
	for _, p := range []string{w.Autoscaler.Namespace, w.Autoscaler.Kind, w.Autoscaler.Name, kind} {
		if p != "" {
			parts = append(parts, safe(p))
		}
	}
	if len(parts) == 1 { // an autoscaler with no identity at all
		parts = append([]string{"workload"}, parts...)
	}
	return strings.Join(parts, "-") + "." + format
}

func safe(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '.', c == '_', c == '-':
		default:
			b[i] = '_'
		}
	}
	out := string(b)
	if strings.Trim(out, ".") == "" { // "." and ".." are not file names
		return strings.Repeat("_", len(out))
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
