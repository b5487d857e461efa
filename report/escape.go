package report

import "github.com/capreport/capreport/report/internal/safetext"

// Text that comes from manifests passes through these before it lands in a
// terminal, a Markdown comment or a page; the rules live in safetext, shared
// with the pull-request diff.
var (
	termText = safetext.Terminal
	mdText   = safetext.Markdown
	htmlText = safetext.HTML
)

// TerminalSafe makes manifest text safe to print on a terminal (control
// characters and bidi overrides shown escaped); for callers outside the
// package that format a line of their own.
func TerminalSafe(s string) string { return safetext.Terminal(s) }
