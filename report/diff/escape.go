package diff

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Ids, metric names, finding checks and roots come from manifests, which a
// fork's pull request controls. These helpers make such text inert in the
// places this package writes it; package report has the same rules but
// keeps its helpers unexported.

// zwj after "@" stops GitHub from turning "@org/team" into a mention.
const zwj = "\u200d"

func unsafeControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) ||
		(r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f
}

// mdText is safe in Markdown inline content and table cells: HTML
// metacharacters become entities, Markdown punctuation is escaped (so no
// link, image, code span or cell boundary can open), line breaks become
// spaces and "@" cannot mention.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '@':
			b.WriteString("@" + zwj)
		case '\\', '`', '*', '_', '[', ']', '|', '~', '!', '$', '#':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			if unsafeControl(r) {
				r = unicode.ReplacementChar
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// htmlText is safe inside the raw HTML we emit (<summary>), where Markdown
// is not parsed and a backslash would show.
func htmlText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '"':
			b.WriteString("&quot;")
		case '\'':
			b.WriteString("&#39;")
		case '@':
			b.WriteString("@" + zwj)
		case '\n', '\r', '\t':
			b.WriteByte(' ')
		default:
			if unsafeControl(r) {
				r = unicode.ReplacementChar
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mermaidLabel keeps only characters that cannot close a quoted Mermaid
// string or the code fence around it.
func mermaidLabel(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			b.WriteRune(r)
		case strings.ContainsRune(" ./_-:,()%+", r):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// termText is safe for a terminal: controls (ANSI escapes start with ESC)
// are shown escaped, line breaks and tabs become spaces.
func termText(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case unsafeControl(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// ellipsize caps manifest text at n runes so one absurd name cannot take
// the whole comment's budget.
func ellipsize(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
