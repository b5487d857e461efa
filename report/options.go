// Package report renders the contract.Report JSON contract into every output
// format capreport writes: the terminal ledger (Text), the JSON contract
// itself (JSON, with its schema), the pull-request comment (Markdown) and a
// self-contained page (HTML). Each format is a function of (Report, Options)
// returning bytes; none of them computes a bill, they only select, order and
// format what rules put in the report, so any format can be rebuilt from a
// saved JSON file.
package report

import "github.com/capreport/capreport/report/internal/mdoc"

// DefaultMaxChars keeps a Markdown body under GitHub's 65,536-character
// comment limit with room for a marker or a footer the caller may add.
const DefaultMaxChars = mdoc.DefaultMaxChars

// defaultMaxCharts is how many workloads get an inline Mermaid chart: enough
// to show the worst offenders, few enough that the comment stays readable.
const defaultMaxCharts = 3

// Options tunes every format; the zero value is valid and means the defaults
// of DefaultOptions. Fields a format does not use are ignored by it.
type Options struct {
	// Color turns on ANSI colour in Text; the caller decides (TTY, NO_COLOR).
	Color bool
	// NoFooter leaves TextFooter off the end of Text, for a command that
	// prints more after the ledger and writes the footer last itself.
	NoFooter bool
	// Pretty indents JSON for people; by default it is compact.
	Pretty bool
	// Title heads the Markdown and HTML outputs; default "capreport".
	Title string
	// MaxChars bounds the Markdown body (counted in bytes, which is never
	// fewer than the characters GitHub counts); default DefaultMaxChars.
	// HTML is not bounded.
	MaxChars int
	// MaxCharts is how many of the worst workloads get a Mermaid chart in
	// Markdown; 0 means the default (3), a negative value means none.
	MaxCharts int
	// Plots maps a workload id to relative paths of plot images written next
	// to the Markdown (--out); they are linked from the workload's details.
	// HTML ignores them: the page must not reference files.
	Plots map[string][]string
	// SVGPlots maps a workload id to SVG documents inlined in the HTML page.
	SVGPlots map[string][][]byte
	// Images maps a workload id to hosted plot images shown inline in its
	// Markdown details (a pull-request comment cannot upload images; see
	// report/github.PublishImages).
	Images map[string][]Image
	// Note is a Markdown paragraph kept right under the headline whatever
	// is cut, e.g. a link to the run's artifacts.
	Note string
	// LimitName names the budget in the "cut to fit" notice; default
	// DefaultLimitName (the comment limit). A job summary says its own.
	LimitName string
}

// Image is one hosted picture: alternative text and an absolute URL. It is
// the Markdown builder's, shared with the pull-request diff (diff.Image).
type Image = mdoc.Image

// DefaultLimitName is the budget a comment is cut to.
const DefaultLimitName = mdoc.DefaultLimitName

// DefaultOptions returns the options every format uses when none are set.
func DefaultOptions() Options {
	return Options{Title: "capreport", MaxChars: DefaultMaxChars, MaxCharts: defaultMaxCharts}
}

// withDefaults fills unset fields so renderers never branch on zero values.
func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.Title == "" {
		o.Title = d.Title
	}
	if o.MaxChars <= 0 {
		o.MaxChars = d.MaxChars
	}
	if o.MaxCharts == 0 {
		o.MaxCharts = d.MaxCharts
	}
	if o.LimitName == "" {
		o.LimitName = DefaultLimitName
	}
	return o
}
