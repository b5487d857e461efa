package diff

import (
	"fmt"
	"strings"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/report/internal/fit"
)

// Options tunes Markdown; the zero value means the defaults.
type Options struct {
	// Title heads the comment; default "capreport".
	Title string
	// MaxChars bounds the body in bytes (never fewer than the characters
	// GitHub counts); default report.DefaultMaxChars, which leaves room
	// under GitHub's 65,536 for a caller's footer.
	MaxChars int
	// NoChart leaves the Mermaid charts out.
	NoChart bool
	// Images maps an autoscaler's id to hosted plots of its head, shown in
	// its details.
	Images map[string][]report.Image
	// Note is a Markdown paragraph kept under the headline whatever is cut.
	Note string
	// LimitName names the budget in the "cut to fit" notice; default
	// report.DefaultLimitName.
	LimitName string
}

func (o Options) withDefaults() Options {
	if o.Title == "" {
		o.Title = "capreport"
	}
	if o.MaxChars <= 0 {
		o.MaxChars = report.DefaultMaxChars
	}
	if o.LimitName == "" {
		o.LimitName = report.DefaultLimitName
	}
	return o
}

// Caps on manifest text in the comment, so one absurd name cannot take the
// budget of the whole comment.
const (
	maxIDRunes    = 120
	maxWordsRunes = 400
	maxFigRunes   = 200
)

// Markdown renders the pull-request comment: the hidden marker (the sticky
// comment is found by it), a headline, a ledger with one row per changed
// autoscaler, before/after Mermaid charts of the worst few changes, and a
// <details> block per autoscaler with every changed figure. It always fits
// o.MaxChars: details go first (the last listed first), then the chart; the
// headline and ledger stay, and only a ledger too long on its own loses its
// last rows (to one line saying how many).
func Markdown(r Result, o Options) ([]byte, error) {
	o = o.withDefaults()
	d := buildDoc(r, o)
	return []byte(d.fit(o.MaxChars)), nil
}

type doc struct {
	head, ledgerHead string
	limitName        string
	rows, details    []string // parallel, in Result order
	charts           []string // the worst changes first
	foot             string
}

type keep struct {
	rows, details, charts int
}

func buildDoc(r Result, o Options) *doc {
	d := &doc{}
	var h strings.Builder
	h.WriteString(report.Marker + "\n")
	fmt.Fprintf(&h, "## %s\n\n", mdText(ellipsize(o.Title, maxIDRunes)))
	h.WriteString("**" + headline(r.Counts) + "**")
	if r.Counts.Unchanged > 0 {
		fmt.Fprintf(&h, " · %d unchanged", r.Counts.Unchanged)
	}
	h.WriteString("\n\n")
	s := r.Head.Summary
	fmt.Fprintf(&h, "Head: %d %s — ❌ %d fail · ⚠️ %d warn · ✅ %d pass · ⚪ %d unpriced (base: %d fail).\n\n",
		s.Autoscalers, plural(s.Autoscalers, "autoscaler", "autoscalers"), s.Fail, s.Warn, s.Pass, s.Unpriced, r.Base.Summary.Fail)
	if o.Note != "" {
		h.WriteString(strings.TrimSpace(o.Note) + "\n\n")
	}
	d.head = h.String()
	d.limitName = o.LimitName

	if len(r.Changes) > 0 {
		d.ledgerHead = "| | Autoscaler | Verdict | Key figure | What changed |\n|---|---|---|---|---|\n"
	}
	for _, c := range r.Changes {
		d.rows = append(d.rows, fmt.Sprintf("| %s | %s | %s | %s | %s |\n", changeIcon(c), mdText(ellipsize(c.ID, maxIDRunes)),
			mdText(verdictCell(c)), mdText(ellipsize(keyCell(c), maxFigRunes)), mdText(ellipsize(c.Summary, maxWordsRunes))))
		d.details = append(d.details, details(c, o.Images[c.ID]))
	}
	for _, i := range chartChanges(r) {
		if o.NoChart {
			break
		}
		c := r.Changes[i]
		b, hd, title, _ := chartPair(c)
		d.charts = append(d.charts, fmt.Sprintf("### %s Replicas before and after: %s\n\n%s\n%s\n\n",
			changeIcon(c), mdText(ellipsize(c.ID, maxIDRunes)), mermaidPair(b, hd, title), chartCaption()))
	}
	// A <sub> line is a paragraph with inline HTML: GitHub parses the
	// Markdown inside it, so its text is escaped as Markdown.
	d.foot = fmt.Sprintf("<sub>%s · base %s → head %s · %s</sub>\n",
		mdText(strings.TrimSpace(r.Head.Tool.Name+" "+r.Head.Tool.Version)),
		mdText(ellipsize(orDash(r.Base.Root), maxIDRunes)), mdText(ellipsize(orDash(r.Head.Root), maxIDRunes)), SchemaVersion)
	return d
}

// headline is the line the comment always keeps.
func headline(n Counts) string {
	if n.Changed == 0 {
		return "No autoscaler changed"
	}
	return fmt.Sprintf("%d %s changed, %d now %s", n.Changed, plural(n.Changed, "autoscaler", "autoscalers"),
		n.NewFailures, plural(n.NewFailures, "fails", "fail"))
}

func changeIcon(c Change) string {
	switch {
	case c.Status == StatusRemoved:
		return "➖"
	case c.VerdictAfter == contract.VerdictFail:
		return "❌"
	case c.VerdictAfter == contract.VerdictWarn:
		return "⚠️"
	case c.VerdictAfter == contract.VerdictPass:
		return "✅"
	}
	return "⚪"
}

func verdictCell(c Change) string {
	switch c.Status {
	case StatusAdded:
		return "new → " + c.VerdictAfter
	case StatusRemoved:
		return c.VerdictBefore + " → removed"
	}
	if c.VerdictBefore == c.VerdictAfter {
		return c.VerdictAfter
	}
	return c.VerdictBefore + " → " + c.VerdictAfter
}

func keyCell(c Change) string {
	switch {
	case c.KeyBefore == "":
		return c.KeyAfter
	case c.KeyAfter == "":
		return c.KeyBefore
	case c.KeyBefore == c.KeyAfter:
		return c.KeyAfter + " (same)"
	}
	// Both sides quote the same figure, so only its value differs: "peak
	// 160 pods vs 100 needed at 10x → peak 50 pods vs 100 needed at 10x"
	// reads better as "peak 160 → 50 pods vs 100 needed at 10x".
	bw, aw := words(c.KeyBefore), words(c.KeyAfter)
	pre, suf := commonWords(bw, aw)
	join := func(ws []string) string { return strings.Join(ws, " ") }
	out := join(bw[pre:len(bw)-suf]) + " → " + join(aw[pre:len(aw)-suf])
	if pre > 0 {
		out = join(bw[:pre]) + " " + out
	}
	if suf > 0 {
		out += " " + join(bw[len(bw)-suf:])
	}
	return out
}

// words splits a key figure at spaces, keeping a duration whole ("5 min
// 51 s" is one word), so that merging never splits a value from its unit.
func words(s string) []string {
	var out []string
	for _, t := range strings.Split(s, " ") {
		if n := len(out); n > 0 {
			prev := out[n-1][strings.LastIndexByte(out[n-1], ' ')+1:]
			if isUnit(t) || (isUnit(prev) && t != "" && t[0] >= '0' && t[0] <= '9') {
				out[n-1] += " " + t
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

func isUnit(t string) bool {
	switch strings.TrimRight(t, ",;:)") {
	case "s", "min", "h":
		return true
	}
	return false
}

// commonWords counts the words a and b share at the start and at the end,
// leaving at least one word of each in the middle.
func commonWords(a, b []string) (prefix, suffix int) {
	n := min(len(a), len(b)) - 1
	for prefix < n && a[prefix] == b[prefix] {
		prefix++
	}
	for suffix < n-prefix && a[len(a)-1-suffix] == b[len(b)-1-suffix] {
		suffix++
	}
	return prefix, suffix
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// details is one autoscaler's <details> block with every changed figure.
func details(c Change, images []report.Image) string {
	var b strings.Builder
	fmt.Fprintf(&b, "<details><summary>%s <b>%s</b>: %s</summary>\n\n", changeIcon(c),
		htmlText(ellipsize(c.ID, maxIDRunes)), htmlText(verdictCell(c)))
	w := c.Head
	if w == nil {
		w = c.Base
	}
	if w.Source.File != "" {
		loc := w.Source.File
		if w.Source.Line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, w.Source.Line)
		}
		fmt.Fprintf(&b, "**Source** %s\n\n", mdText(ellipsize(loc, maxFigRunes)))
	}
	b.WriteString("| Figure | Before | After | Change |\n|---|---:|---:|---:|\n")
	for _, f := range c.Figures {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdText(ellipsize(f.Label, maxFigRunes)),
			mdText(ellipsize(f.BeforeText, maxFigRunes)), mdText(ellipsize(f.AfterText, maxFigRunes)), mdText(f.Delta))
	}
	if ims := report.ImagesMarkdown(images); ims != "" {
		b.WriteString("\n" + ims)
	}
	b.WriteString("\n</details>\n\n")
	return b.String()
}

// notice says what was cut; "" when nothing was.
func (d *doc) notice(k keep) string {
	var parts []string
	if n := len(d.details) - k.details; n > 0 {
		parts = append(parts, fmt.Sprintf("the details of %d %s", n, plural(n, "autoscaler", "autoscalers")))
	}
	if n := len(d.charts) - k.charts; n > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", n, plural(n, "chart", "charts")))
	}
	if n := len(d.rows) - k.rows; n > 0 {
		parts = append(parts, fmt.Sprintf("%d ledger %s", n, plural(n, "row", "rows")))
	}
	return fit.Notice(d.limitName, parts, "The JSON diff carries everything.")
}

func (d *doc) assemble(k keep) string {
	var b strings.Builder
	b.WriteString(d.head)
	b.WriteString(d.notice(k))
	fit.WriteList(&b, d.ledgerHead, d.rows, k.rows, func(n int) string {
		return fmt.Sprintf("\n…and %d more changed %s, listed worst first above.\n", n, plural(n, "autoscaler", "autoscalers"))
	})
	for _, s := range d.charts[:k.charts] {
		b.WriteString(s)
	}
	for _, s := range d.details[:k.details] {
		b.WriteString(s)
	}
	b.WriteString(d.foot)
	return b.String()
}

// fit assembles the largest body under limit, cutting in the documented
// order.
func (d *doc) fit(limit int) string {
	s, ok := fit.Fit(limit, d.assemble, keep{rows: len(d.rows), details: len(d.details), charts: len(d.charts)},
		// 1. Details, the last listed first.
		fit.Prefix(func(k *keep) *int { return &k.details }),
		// 2. Charts, the last (the least bad change) first, once no
		// details are left.
		fit.Prefix(func(k *keep) *int { return &k.charts }),
		// 3. Ledger rows beyond what fits collapse into one line.
		fit.Prefix(func(k *keep) *int { return &k.rows }),
	)
	if ok {
		return s
	}
	// Only an absurd limit gets here (smaller than the headline and the
	// foot): cut at a rune boundary rather than exceed it.
	return fit.AtRune(s, limit)
}
