package diff

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/internal/mdoc"
)

// Options tunes Markdown; the zero value means the defaults.
type Options struct {
	// Title heads the comment; default "capreport".
	Title string
	// MaxChars bounds the body in bytes (never fewer than the characters
	// GitHub counts); default report.DefaultMaxChars (the same budget),
	// which leaves room under GitHub's 65,536 for a caller's footer.
	MaxChars int
	// NoChart leaves the Mermaid charts out.
	NoChart bool
	// Images maps an autoscaler's id to hosted plots of its head, shown in
	// its details.
	Images map[string][]Image
	// Note is a Markdown paragraph kept under the headline whatever is cut.
	Note string
	// LimitName names the budget in the "cut to fit" notice; default
	// report.DefaultLimitName (the same name).
	LimitName string
	// WorsePercent, when positive, is the team's threshold on a bill's
	// growth (BillsWorse): the bills past it are named under the headline.
	WorsePercent float64
}

// Image is one hosted picture: alternative text and an absolute URL. It is
// the same type as report.Image, from the Markdown builder both share.
type Image = mdoc.Image

func (o Options) withDefaults() Options {
	if o.Title == "" {
		o.Title = "capreport"
	}
	if o.MaxChars <= 0 {
		o.MaxChars = mdoc.DefaultMaxChars
	}
	if o.LimitName == "" {
		o.LimitName = mdoc.DefaultLimitName
	}
	return o
}

// Caps on manifest text in the comment, so one absurd name cannot take the
// budget of the whole comment.
const (
	maxIDRunes    = mdoc.MaxIDRunes
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
	b := buildDoc(r, o)
	// Only an absurd limit (smaller than the headline and the foot) is not
	// met by the cuts: the Doc has no Overflow, so the body is then cut at
	// a rune boundary rather than exceed it.
	return []byte(b.doc.Fit(o.MaxChars,
		// 1. Details, the last listed first.
		mdoc.Prefix(b.details),
		// 2. Charts, the last (the least bad change) first, once no
		// details are left.
		mdoc.Prefix(b.charts),
		// 3. Ledger rows beyond what fits collapse into one line.
		mdoc.Prefix(b.ledger),
	)), nil
}

// body is the comment's Markdown document with the blocks Markdown cuts.
type body struct {
	doc                     *mdoc.Doc
	ledger, charts, details *mdoc.Block
}

// buildDoc renders every piece of the comment: the ledger and the details
// in Result order, the charts of the worst changes first.
func buildDoc(r Result, o Options) body {
	lead := "**" + headline(r.Counts) + "**"
	if r.Counts.Unchanged > 0 {
		lead += fmt.Sprintf(" · %d unchanged", r.Counts.Unchanged)
	}
	s := r.Head.Summary
	var cs []string
	rows := ledgerRows(r.Changes)
	for _, i := range chartChanges(r) {
		if o.NoChart {
			break
		}
		c := r.Changes[i]
		base, head, title, _ := chartPair(c)
		cs = append(cs, fmt.Sprintf("### %s Replicas before and after: %s\n\n%s",
			changeIcon(c), mdoc.Capped(c.ID, maxIDRunes), mdoc.Chart(mermaidPair(base, head, title), chartCaption())))
	}
	b := body{ledger: mdoc.Ledger("| | Autoscaler | Verdict | Key figure | What changed |\n|---|---|---|---|---|\n", rows, func(n int) string {
		return fmt.Sprintf("\n…and %d more %s of changed autoscalers, in the same order.\n", n, plural(n, "row", "rows"))
	})}
	b.charts = &mdoc.Block{Items: cs, Noun: func(n int) string { return fmt.Sprintf("%d %s", n, plural(n, "chart", "charts")) }}
	b.details = mdoc.DetailsWithin(len(r.Changes), o.MaxChars, func(i int) string { return details(r.Changes[i], o.Images[r.Changes[i].ID]) })
	b.doc = &mdoc.Doc{
		Title: mdoc.Capped(o.Title, maxIDRunes),
		Lead: append(append([]string{lead}, worseLine(r, o.WorsePercent)...), fmt.Sprintf("Head: %d %s — ❌ %d fail · ⚠️ %d warn · ✅ %d pass · ⚪ %d unpriced (base: %d fail).",
			s.Autoscalers, plural(s.Autoscalers, "autoscaler", "autoscalers"), s.Fail, s.Warn, s.Pass, s.Unpriced, r.Base.Summary.Fail)),
		Note:   o.Note,
		Blocks: []*mdoc.Block{b.ledger, b.charts, b.details},
		Foot: []string{mdoc.Text(strings.TrimSpace(r.Head.Tool.Name + " " + r.Head.Tool.Version)),
			"base " + mdoc.Capped(orDash(r.Base.Root), maxIDRunes) + " → head " + mdoc.Capped(orDash(r.Head.Root), maxIDRunes),
			SchemaVersion},
		LimitName: o.LimitName,
		Whole:     "The JSON diff carries everything.",
	}
	return b
}

// maxWorseNamed is how many bills past the threshold the lead names.
const maxWorseNamed = 5

// worseLine is the lead's paragraph naming the bills that grew past the
// team's threshold (none when it is off or nothing did).
func worseLine(r Result, percent float64) []string {
	if percent <= 0 {
		return nil
	}
	ws := BillsWorse(r, percent)
	if len(ws) == 0 {
		return nil
	}
	var named []string
	for _, w := range ws[:min(len(ws), maxWorseNamed)] {
		named = append(named, fmt.Sprintf("%s (%s %s → %s, %s)", mdoc.Capped(w.ID, maxIDRunes), mdoc.Text(w.Figure.Label),
			mdoc.Text(w.Figure.BeforeText), mdoc.Text(w.Figure.AfterText), growthText(w.Percent)))
	}
	line := fmt.Sprintf("📈 %d %s grew more than %s %%: %s", len(ws), plural(len(ws), "bill", "bills"),
		strconv.FormatFloat(percent, 'f', -1, 64), strings.Join(named, "; "))
	if n := len(ws) - maxWorseNamed; n > 0 {
		line += fmt.Sprintf("; and %d more", n)
	}
	return []string{line + "."}
}

func growthText(p float64) string {
	if math.IsInf(p, 1) {
		return "+∞ %"
	}
	return fmt.Sprintf("+%.0f %%", p)
}

// ledgerRows is one row per change, except that changes reading the same
// (the same transition, verdicts, key figure and words: a chart bump that
// adds one warning to twenty autoscalers) share one row naming them, so
// the news is not buried under copies. Compare put them side by side: it
// orders by impact, then score, which equal rows share.
func ledgerRows(cs []Change) []string {
	var rows []string
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && sameRow(cs[i], cs[j]) {
			j++
		}
		c := cs[i]
		rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s |\n", changeIcon(c), idsCell(cs[i:j]),
			mdoc.Text(verdictCell(c)), mdoc.Capped(keyCell(c), maxFigRunes), mdoc.Capped(c.Summary, maxWordsRunes)))
		i = j
	}
	return rows
}

func sameRow(a, b Change) bool {
	return a.Impact == b.Impact && changeIcon(a) == changeIcon(b) && verdictCell(a) == verdictCell(b) &&
		keyCell(a) == keyCell(b) && a.Summary == b.Summary
}

// groupNames is how many ids a shared row names before "and N more".
const groupNames = 3

// idsCell names the autoscalers of one row: the id alone, or the first
// few and how many more.
func idsCell(cs []Change) string {
	if len(cs) == 1 {
		return mdoc.Capped(cs[0].ID, maxIDRunes)
	}
	var names []string
	for _, c := range cs[:min(len(cs), groupNames)] {
		names = append(names, mdoc.Capped(c.ID, maxIDRunes))
	}
	cell := strings.Join(names, ", ")
	if n := len(cs) - groupNames; n > 0 {
		cell += fmt.Sprintf(" and %d more", n)
	}
	return fmt.Sprintf("%s (%d autoscalers)", cell, len(cs))
}

// headline is the line the comment always keeps: how many changed, then
// how many made each transition in reading order. Newly failing is always
// said, even at 0 (that nothing broke is news); the others only when some
// made it.
func headline(n Counts) string {
	if n.Changed == 0 {
		return "No autoscaler changed"
	}
	parts := []string{fmt.Sprintf("%d newly failing", n.Transitions[ImpactNewFailure])}
	for _, impact := range impactOrder[1:] {
		if k := n.Transitions[impact]; k > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", k, transitionWords[impact]))
		}
	}
	return fmt.Sprintf("%d %s changed: %s", n.Changed, plural(n.Changed, "autoscaler", "autoscalers"), strings.Join(parts, ", "))
}

// transitionWords names each impact after its count in the headline.
var transitionWords = map[string]string{
	ImpactFixed:   "fixed",
	ImpactWorse:   "worse",
	ImpactFailing: "still failing",
	ImpactBetter:  "better",
	ImpactAdded:   "added",
	ImpactRemoved: "removed",
	ImpactChanged: "with changed figures",
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
func details(c Change, images []Image) string {
	var b strings.Builder
	b.WriteString(mdoc.OpenDetails(false, changeIcon(c), c.ID, verdictCell(c)))
	w := c.Head
	if w == nil {
		w = c.Base
	}
	if w.Source.File != "" {
		loc := w.Source.File
		if w.Source.Line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, w.Source.Line)
		}
		fmt.Fprintf(&b, "**Source** %s\n\n", mdoc.Capped(loc, maxFigRunes))
	}
	b.WriteString("| Figure | Before | After | Change |\n|---|---:|---:|---:|\n")
	for _, f := range c.Figures {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", mdoc.Capped(f.Label, maxFigRunes),
			mdoc.Capped(f.BeforeText, maxFigRunes), mdoc.Capped(f.AfterText, maxFigRunes), mdoc.Text(f.Delta))
	}
	if ims := mdoc.Images(images); ims != "" {
		b.WriteString("\n" + ims)
	}
	b.WriteString("\n</details>\n\n")
	return b.String()
}
