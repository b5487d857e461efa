// Package safetext makes text that comes from manifests inert where
// capreport writes it. Names, paths and messages that quote them are
// attacker-controlled on a fork's pull request, so every renderer (the
// report formats and the pull-request diff) passes them through here before
// they land in a terminal, a Markdown comment or a page.
package safetext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

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

// Terminal makes manifest text safe for a terminal and a tabwriter cell:
// line breaks and tabs become spaces (they would break a row or a column),
// other controls are shown escaped so an ANSI sequence in a name cannot
// recolour or rewrite the user's terminal.
func Terminal(s string) string {
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
	// What follows the text is not its own ("Scanned " + root + "."): a
	// text that ends in "www" gets its joiner now, before whatever "."
	// the template puts after it.
	if n := len(s); n >= 3 && strings.EqualFold(s[n-3:], "www") {
		b.WriteString(zwj)
	}
	return b.String()
}

// Markdown makes manifest text safe anywhere in Markdown inline content,
// including a table cell and the inline HTML of a <sub> line: HTML
// metacharacters become entities (no raw HTML, and entities also work
// inside HTML blocks where backslashes do not), Markdown punctuation that
// could open a link, image, code span, emphasis, math, a heading or a cell
// boundary is backslash-escaped, a backslash cannot escape our own
// delimiters, line breaks become spaces, and neither a mention, an issue
// reference nor an autolink survives (inline).
func Markdown(s string) string {
	return inline(s, func(b *strings.Builder, r rune) bool {
		if !strings.ContainsRune("\\`*_[]|~!$#", r) {
			return false
		}
		b.WriteByte('\\')
		b.WriteRune(r)
		return true
	})
}

// HTML makes manifest text safe inside the raw HTML we emit (<summary>):
// HTML-escaped, single line, no mentions. Markdown is not parsed there, so no
// backslashes (they would show).
func HTML(s string) string {
	return inline(s, func(b *strings.Builder, r rune) bool {
		if r != '\'' {
			return false
		}
		b.WriteString("&#39;")
		return true
	})
}

// inline holds what Markdown and HTML share: HTML metacharacters become
// entities, the text stays on one line, and controls become U+FFFD. GitHub
// links text after rendering it, so what it would link gets a zero-width
// joiner that breaks the pattern and not the reading: after "@" (a
// mention, or an email autolink), after "#" and "GH-" (issue references:
// #12, org/repo#12, GH-12), after the ":" of "://" and before the "." of
// "www." (URL autolinks), also after a final "www". special handles a format's own characters first and reports
// whether it wrote r.
func inline(s string, special func(b *strings.Builder, r rune) bool) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i, r := range s {
		if breaksAutolink(s, i, r) {
			b.WriteString(zwj)
		}
		if special(&b, r) {
			if r == '#' {
				b.WriteString(zwj)
			}
			continue
		}
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"':
			b.WriteString("&quot;")
		case r == '@' || r == '#':
			b.WriteRune(r)
			b.WriteString(zwj)
		case r == ':' && strings.HasPrefix(s[i+1:], "//"), r == '-' && i >= 2 && strings.EqualFold(s[i-2:i], "gh"):
			b.WriteRune(r)
			b.WriteString(zwj)
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case isUnsafeControl(r):
			b.WriteRune(unicode.ReplacementChar)
		default:
			b.WriteRune(r)
		}
	}
	// What follows the text is not its own ("Scanned " + root + "."): a
	// text that ends in "www" gets its joiner now, before whatever "."
	// the template puts after it.
	if n := len(s); n >= 3 && strings.EqualFold(s[n-3:], "www") {
		b.WriteString(zwj)
	}
	return b.String()
}

// breaksAutolink reports whether a joiner goes before the rune r at byte i
// of s: the "." of "www." (in any case), which GitHub autolinks as a URL.
func breaksAutolink(s string, i int, r rune) bool {
	return r == '.' && i >= 3 && strings.EqualFold(s[i-3:i], "www")
}

// MermaidLabel keeps only characters that cannot end a quoted Mermaid string
// or the fenced block around it.
func MermaidLabel(s string) string {
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

// Ellipsize caps text at n runes so one absurd name cannot take a whole
// comment's budget.
func Ellipsize(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
