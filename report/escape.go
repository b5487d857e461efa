package report

import (
	"fmt"
	"strings"
	"unicode"
)

// Text that comes from manifests (names, paths, messages that quote them,
// reasons from a failed render) is attacker-controlled on a fork's pull
// request. Every renderer passes it through one of these before it lands in
// a terminal, a Markdown comment or a page.

// zwj after "@" keeps GitHub from turning "@org/team" into a mention (which
// would notify people) while the text still reads the same.
const zwj = "\u200d"

// isBidiControl reports the Unicode bidirectional overrides and isolates
// that can make text display differently from what it is ("trojan source").
func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f
}

// isUnsafeControl reports characters a terminal or a Markdown line must not
// receive raw: C0/C1 controls (ANSI escapes start with ESC) and bidi controls.
func isUnsafeControl(r rune) bool {
	return r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidiControl(r)
}

// termText makes manifest text safe for a terminal and a tabwriter cell:
// line breaks and tabs become spaces (they would break a row or a column),
// other controls are shown escaped so an ANSI sequence in a name cannot
// recolour or rewrite the user's terminal.
func termText(s string) string {
	if !strings.ContainsFunc(s, isUnsafeControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case isUnsafeControl(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mdText makes manifest text safe anywhere in Markdown inline content,
// including a table cell: HTML metacharacters become entities (no raw HTML,
// and entities also work inside HTML blocks where backslashes do not),
// Markdown punctuation that could open a link, image, code span, emphasis,
// math or a cell boundary is backslash-escaped, a backslash cannot escape our
// own delimiters, line breaks become spaces, and "@" cannot mention.
func mdText(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
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
			if isUnsafeControl(r) || r == unicode.ReplacementChar {
				b.WriteRune(unicode.ReplacementChar)
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// htmlText makes manifest text safe inside the raw HTML we emit (<summary>):
// HTML-escaped, single line, no mentions. Markdown is not parsed there, so no
// backslashes (they would show).
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
			if isUnsafeControl(r) {
				b.WriteRune(unicode.ReplacementChar)
				continue
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// mermaidLabel keeps only characters that cannot end a quoted Mermaid string
// or the fenced block around it.
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

// TerminalSafe makes manifest text safe to print on a terminal (control
// characters and bidi overrides shown escaped); for callers outside the
// package that format a line of their own.
func TerminalSafe(s string) string { return termText(s) }
