package mdoc

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/capreport/capreport/report/internal/mermaid"
	"github.com/capreport/capreport/report/internal/safetext"
)

// MaxIDRunes caps a name from a manifest (an autoscaler's id, a path, an
// image's alternative text) in a body, so one absurd name cannot take the
// budget of the whole comment.
const MaxIDRunes = 120

// Text makes manifest text inert as Markdown inline content: a table cell,
// a paragraph, the inline HTML of a <sub> line. The rules are safetext's.
func Text(s string) string { return safetext.Markdown(s) }

// Capped is Text of s cut to at most n runes.
func Capped(s string, n int) string { return safetext.Markdown(safetext.Ellipsize(s, n)) }

// OpenDetails opens an autoscaler's <details> block, open from the start
// when open is set, with its summary line: the icon, the name in bold (cut
// to MaxIDRunes) and the notes after a colon, joined by " · ". The name and
// notes are manifest text as it is: GitHub does not parse Markdown in a
// <summary>, so they are escaped as HTML here, where backslashes would
// show. A blank line follows, for the Markdown inside.
func OpenDetails(open bool, icon, name string, notes ...string) string {
	attr := ""
	if open {
		attr = " open"
	}
	esc := make([]string, len(notes))
	for i, n := range notes {
		esc[i] = safetext.HTML(n)
	}
	return fmt.Sprintf("<details%s><summary>%s <b>%s</b>: %s</summary>\n\n", attr, icon,
		safetext.HTML(safetext.Ellipsize(name, MaxIDRunes)), strings.Join(esc, " · "))
}

// Chart is a Mermaid chart GitHub draws in place, followed by its caption
// (a sentence naming the lines' colours: xychart-beta draws no legend) and
// how its lines were down-sampled, then a blank line; "" when the chart
// cannot be drawn, rather than a block that would not parse.
func Chart(ch mermaid.XYChart, caption string) string {
	s := ch.String()
	if s == "" {
		return ""
	}
	return s + "\n" + caption + " " + mermaid.EnvelopeNote + "\n\n"
}

// Image is one hosted picture: alternative text and an absolute URL.
type Image struct {
	Alt, URL string
}

// Images shows hosted pictures inline, one paragraph each. Only absolute
// web links are shown, never javascript: or data:, and the alternative
// text is escaped and cut to MaxIDRunes.
func Images(ims []Image) string {
	var b strings.Builder
	for _, im := range ims {
		u, err := url.Parse(im.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			continue
		}
		link := strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(u.String())
		fmt.Fprintf(&b, "![%s](%s)\n\n", Capped(im.Alt, MaxIDRunes), link)
	}
	return b.String()
}
