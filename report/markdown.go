package report

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/internal/fit"
)

// Marker is the hidden first line of every comment body; the GitHub client
// finds its sticky comment by it.
const Marker = "<!-- capreport -->"

// GitHubCommentLimit is GitHub's limit on a comment body, in characters.
const GitHubCommentLimit = 65536

// Caps on manifest text inside the comment, so one absurd name or message
// cannot take the budget of the whole comment.
const (
	maxIDRunes      = 120
	maxMessageRunes = 600
	maxScaleEvents  = 24
)

// Markdown renders the pull-request comment body: the hidden marker, a
// headline, the ledger (one row per workload, worst first, with pass/fail
// against latency targets), a <details> block per workload with its full bill,
// findings, assumptions and (for the worst few) a Mermaid chart, then findings
// outside any workload and the sources. The body always fits o.MaxChars:
// details go first (the worst workloads keep theirs longest), then healthy
// sources, then ledger rows beyond what fits; the headline stays and a line
// says what was cut.
func Markdown(r contract.Report, o Options) ([]byte, error) {
	o = o.withDefaults()
	d := buildMarkdown(r, o, commentMedium{})
	return []byte(d.fit(o.MaxChars)), nil
}

// mdDoc is the comment in pieces, rendered once; fit assembles the largest
// version under the budget from them.
type mdDoc struct {
	head       string   // marker, title, headline, note
	limitName  string   // the budget, for the notice
	ledgerHead string   // table header
	rows       []string // one per workload, worst first
	details    []string // parallel to rows; "" when a workload has none
	findings   string   // findings outside any workload
	gitops     string   // GitOps objects not followed, above the details
	srcHead    string
	srcFailed  []string // failed sources first: they explain missing workloads
	srcOther   []string
	foot       string
}

// cut says how much of a mdDoc to keep.
type cut struct {
	details    int  // details kept, from the worst workload down
	rows       int  // ledger rows kept
	srcOtherOK bool // rendered/skipped sources kept
}

func (d *mdDoc) full() cut {
	return cut{details: len(d.details), rows: len(d.rows), srcOtherOK: true}
}

// notice is the line that says what was cut; "" when nothing was.
func (d *mdDoc) notice(c cut) string {
	var parts []string
	if n := countDetails(d.details[c.details:]); n > 0 {
		parts = append(parts, fmt.Sprintf("the details of %d %s", n, plural(n, "autoscaler", "autoscalers")))
	}
	if !c.srcOtherOK && len(d.srcOther) > 0 {
		parts = append(parts, fmt.Sprintf("%d rendered %s", len(d.srcOther), plural(len(d.srcOther), "source", "sources")))
	}
	if n := len(d.rows) - c.rows; n > 0 {
		parts = append(parts, fmt.Sprintf("%d ledger %s", n, plural(n, "row", "rows")))
	}
	return fit.Notice(d.limitName, parts, "The JSON and HTML reports carry everything.")
}

func countDetails(ds []string) int {
	n := 0
	for _, s := range ds {
		if s != "" {
			n++
		}
	}
	return n
}

// assemble joins the kept pieces.
func (d *mdDoc) assemble(c cut) string {
	var b strings.Builder
	b.WriteString(d.head)
	b.WriteString(d.notice(c))
	fit.WriteList(&b, d.ledgerHead, d.rows, c.rows, func(n int) string {
		return fmt.Sprintf("\n…and %d more %s, worst first above.\n", n, plural(n, "autoscaler", "autoscalers"))
	})
	b.WriteString(d.gitops)
	for _, s := range d.details[:c.details] {
		b.WriteString(s)
	}
	b.WriteString(d.findings)
	if len(d.srcFailed)+len(d.srcOther) > 0 {
		b.WriteString(d.srcHead)
		for _, s := range d.srcFailed {
			b.WriteString(s)
		}
		if c.srcOtherOK {
			for _, s := range d.srcOther {
				b.WriteString(s)
			}
		} else if len(d.srcOther) > 0 {
			fmt.Fprintf(&b, "| | …and %d more | | | |\n", len(d.srcOther))
		}
		b.WriteString("\n</details>\n\n")
	}
	b.WriteString(d.foot)
	return b.String()
}

// fit returns the largest assembly under limit bytes, cutting in the
// documented order. Bytes bound characters however GitHub counts them.
func (d *mdDoc) fit(limit int) string {
	s, ok := fit.Fit(limit, d.assemble, d.full(),
		// 1. Details, least bad first: keep the longest prefix that fits.
		fit.Prefix(func(c *cut) *int { return &c.details }),
		// 2. Sources that rendered: failed ones stay, they explain gaps.
		fit.Drop(func(c *cut) { c.srcOtherOK = false }),
		// 3. Ledger rows beyond what fits collapse into one line.
		fit.Prefix(func(c *cut) *int { return &c.rows }),
	)
	if ok {
		return s
	}
	// 4. Only the findings outside any workload or failed sources can still
	// be too long: keep the head and notice, cut the rest at a line.
	return fit.AtLine(s, limit, len(d.head), "\n\n…cut: the rest of this comment did not fit; see the JSON report.\n")
}

// medium is where a Markdown body is read: the pull-request comment
// (commentMedium) or the HTML page (html.go's pageMedium). The text is the
// same; how details open and how pictures are shown differ.
type medium interface {
	// detailsAttr is the attribute a workload's <details> opens with.
	detailsAttr() string
	// writePlots writes a workload's pictures; withChart says it is among
	// the workloads the budget gives a chart.
	writePlots(b *strings.Builder, w contract.Workload, o Options, withChart bool)
}

// buildMarkdown renders every piece for the medium m.
func buildMarkdown(r contract.Report, o Options, m medium) *mdDoc {
	d := &mdDoc{}
	ws := WorstFirst(r.Workloads)

	var h strings.Builder
	h.WriteString(Marker + "\n")
	fmt.Fprintf(&h, "## %s\n\n", mdText(o.Title))
	h.WriteString(headline(r.Summary) + "\n\n")
	if r.Root != "" {
		fmt.Fprintf(&h, "Scanned %s.\n\n", mdText(ellipsize(r.Root, maxIDRunes)))
	}
	if o.Note != "" {
		h.WriteString(strings.TrimSpace(o.Note) + "\n\n")
	}
	d.head = h.String()
	d.limitName = o.LimitName

	d.ledgerHead = "| Verdict | Autoscaler | Signal | Bill | Latency target | Findings |\n|---|---|---|---|---|---|\n"
	charts := 0
	for _, w := range ws {
		d.rows = append(d.rows, ledgerRow(w))
		withChart := false
		if o.MaxCharts > 0 && charts < o.MaxCharts && w.Verdict != contract.VerdictUnpriced {
			if tl, _ := chartTimeline(w); tl != nil {
				withChart = true
				charts++
			}
		}
		d.details = append(d.details, workloadDetails(w, o, withChart, m))
	}

	gitops, others := splitNotFollowed(r.Findings)
	if len(gitops) > 0 {
		var f strings.Builder
		fmt.Fprintf(&f, "\n### %d GitOps %s not followed\n\nWhat %s is missing from this report.\n\n",
			len(gitops), plural(len(gitops), "object", "objects"), plural(len(gitops), "it delivers", "they deliver"))
		writeMdFindings(&f, gitops)
		f.WriteString("\n")
		d.gitops = f.String()
	}
	if len(others) > 0 {
		var f strings.Builder
		f.WriteString("### Findings outside any autoscaler\n\n")
		writeMdFindings(&f, others)
		f.WriteString("\n")
		d.findings = f.String()
	}

	if len(r.Sources) > 0 {
		failed := 0
		for _, s := range r.Sources {
			row := fmt.Sprintf("| %s %s | %s | %s | %d | %s |\n", statusIcon(s.Status), mdText(s.Status),
				mdText(ellipsize(sourceName(s), maxIDRunes)), mdText(s.Type), s.Objects,
				mdText(ellipsize(s.Reason, maxMessageRunes)))
			if s.Status == "failed" {
				failed++
				d.srcFailed = append(d.srcFailed, row)
			} else {
				d.srcOther = append(d.srcOther, row)
			}
		}
		d.srcHead = fmt.Sprintf("<details><summary>Sources: %d rendered, %d failed</summary>\n\n| Status | Source | Type | Objects | Reason |\n|---|---|---|---:|---|\n",
			len(r.Sources)-failed, failed)
	}

	// A <sub> line is a paragraph with inline HTML: GitHub parses the
	// Markdown inside it, so its text is escaped as Markdown.
	var foot strings.Builder
	foot.WriteString("<sub>")
	foot.WriteString(mdText(joinNonEmpty(" ", r.Tool.Name, r.Tool.Version)))
	if r.GeneratedAt != "" {
		foot.WriteString(" · " + mdText(r.GeneratedAt))
	}
	foot.WriteString(" · " + mdText(contract.SchemaVersion) + "</sub>\n")
	d.foot = foot.String()
	return d
}

// headline is the one line every body keeps, from rules' counts.
func headline(s contract.Summary) string {
	h := fmt.Sprintf("**%d %s:** ❌ %d fail · ⚠️ %d warn · ✅ %d pass · ⚪ %d unpriced — %d %s, %d %s",
		s.Autoscalers, plural(s.Autoscalers, "autoscaler", "autoscalers"), s.Fail, s.Warn, s.Pass, s.Unpriced,
		s.Errors, plural(s.Errors, "error", "errors"), s.Warnings, plural(s.Warnings, "warning", "warnings"))
	if s.NotFollowed > 0 {
		h += fmt.Sprintf(" · %d GitOps %s not followed", s.NotFollowed, plural(s.NotFollowed, "object", "objects"))
	}
	return h
}

// splitNotFollowed separates the GitOps objects capreport could not follow
// (shown above the details) from the other report-level findings.
func splitNotFollowed(fs []contract.Finding) (gitops, others []contract.Finding) {
	for _, f := range fs {
		if f.Check == check.GitOpsNotFollowed {
			gitops = append(gitops, f)
		} else {
			others = append(others, f)
		}
	}
	return gitops, others
}

func verdictIcon(v string) string {
	switch v {
	case contract.VerdictFail:
		return "❌"
	case contract.VerdictWarn:
		return "⚠️"
	case contract.VerdictPass:
		return "✅"
	}
	return "⚪"
}

func severityIcon(s string) string {
	switch s {
	case check.SeverityError:
		return "❌"
	case check.SeverityWarning:
		return "⚠️"
	}
	return "ℹ️"
}

func statusIcon(s string) string {
	switch s {
	case "failed":
		return "❌"
	case "skipped":
		return "⏭️"
	}
	return "✅"
}

// latencyCell is the pass/fail against the latency target as rules set it.
func latencyCell(l *contract.LatencyCheck) string {
	if l == nil {
		return "—"
	}
	icon := "❌"
	if l.Met {
		icon = "✅"
	}
	return fmt.Sprintf("%s %s vs %s (%s)", icon, secs(l.ExpectedSeconds), secs(l.TargetSeconds), mdText(l.Basis))
}

// findingsCell counts live findings by severity for the ledger.
func findingsCell(fs []contract.Finding) string {
	n := findingCounts(fs)
	var parts []string
	if n[0] > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", n[0], plural(n[0], "error", "errors")))
	}
	if n[1] > 0 {
		parts = append(parts, fmt.Sprintf("%d %s", n[1], plural(n[1], "warning", "warnings")))
	}
	if n[2] > 0 {
		parts = append(parts, fmt.Sprintf("%d info", n[2]))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, ", ")
}

func ledgerRow(w contract.Workload) string {
	return fmt.Sprintf("| %s %s | %s | %s | %s | %s | %s |\n",
		verdictIcon(w.Verdict), mdText(verdictText(w)), mdText(ellipsize(w.ID, maxIDRunes)), mdText(w.Signal),
		mdText(ellipsize(billKey(w), maxMessageRunes)), latencyCell(w.Latency), findingsCell(w.Findings))
}

// workloadDetails is the <details> block with one workload's full bill.
func workloadDetails(w contract.Workload, o Options, withChart bool, m medium) string {
	var b strings.Builder
	writeDetailsHead(&b, w, m.detailsAttr())
	writeBill(&b, w)
	m.writePlots(&b, w, o, withChart)
	if len(w.Findings) > 0 {
		b.WriteString("**Findings**\n\n")
		writeMdFindings(&b, w.Findings)
		b.WriteString("\n")
	}
	writeMdAssumptions(&b, w.Assumptions)
	b.WriteString("</details>\n\n")
	return b.String()
}

// writeDetailsHead opens a workload's <details> block and writes what it
// scales and on what: target, source, delivery, metrics and latency target.
func writeDetailsHead(b *strings.Builder, w contract.Workload, open string) {
	fmt.Fprintf(b, "<details%s><summary>%s <b>%s</b>: %s · %s</summary>\n\n", open, verdictIcon(w.Verdict),
		htmlText(ellipsize(w.ID, maxIDRunes)), htmlText(verdictText(w)), htmlText(w.Signal))

	found := "found"
	if !w.TargetFound {
		found = "**not found**"
	}
	fmt.Fprintf(b, "**Target** %s (%s) · **Source** %s · **Replicas** %d..%d\n\n",
		mdText(ellipsize(refString(w.Target), maxIDRunes)), found,
		mdText(ellipsize(w.Source.String(), maxMessageRunes)), w.MinReplicas, w.MaxReplicas)
	b.WriteString(deliveryMarkdown(w.Source))
	if len(w.Metrics) > 0 {
		var ms []string
		for _, m := range w.Metrics {
			s := joinNonEmpty(" ", m.Type, m.Name, m.Target)
			if m.Trigger != "" {
				s += " (KEDA " + m.Trigger + ")"
			}
			ms = append(ms, mdText(ellipsize(s, maxIDRunes))+" → "+mdText(m.Signal))
		}
		fmt.Fprintf(b, "**Metrics** %s\n\n", strings.Join(ms, "; "))
	}
	if w.Latency != nil {
		fmt.Fprintf(b, "**Latency target** %s\n\n", latencyCell(w.Latency))
	}
}

// writeBill writes the workload's size or time bill, or why it has none: a
// workload without a bill still says so, rather than showing an empty gap.
func writeBill(b *strings.Builder, w contract.Workload) {
	switch {
	case w.Size != nil:
		writeSizeBill(b, w.Size)
	case w.Time != nil:
		writeTimeBill(b, w.Time)
	default:
		reason := w.UnpricedReason
		if reason == "" {
			reason = "no bill"
		}
		fmt.Fprintf(b, "**Not priced:** %s\n\n", mdText(ellipsize(reason, maxMessageRunes)))
	}
}

// commentMedium is the pull-request comment (and the job summary): a
// workload's details start closed, to keep the ledger short, and its
// pictures are the Mermaid chart GitHub draws, links to the plot files and
// the uploaded images.
type commentMedium struct{}

func (commentMedium) detailsAttr() string { return "" }

func (commentMedium) writePlots(b *strings.Builder, w contract.Workload, o Options, withChart bool) {
	if withChart {
		tl, title := chartTimeline(w)
		if ch := mermaidChart(tl, title); ch != "" {
			b.WriteString(ch + "\n")
		}
	}
	if paths := o.Plots[w.ID]; len(paths) > 0 {
		var links []string
		for _, p := range paths {
			u := url.URL{Path: p}
			links = append(links, fmt.Sprintf("[%s](%s)", mdText(p), u.EscapedPath()))
		}
		fmt.Fprintf(b, "**Plots** %s\n\n", strings.Join(links, " · "))
	}
	b.WriteString(ImagesMarkdown(o.Images[w.ID]))
}

// writeMdAssumptions writes the table of inputs the bill was computed from,
// sorted by key so that the block does not depend on map order.
func writeMdAssumptions(b *strings.Builder, as map[string]contract.Assumption) {
	if len(as) == 0 {
		return
	}
	b.WriteString("**Assumptions**\n\n| Input | Value | From |\n|---|---|---|\n")
	for _, k := range sortedKeys(as) {
		a := as[k]
		fmt.Fprintf(b, "| %s | %s | %s |\n", mdText(ellipsize(k, maxIDRunes)), mdText(ellipsize(a.Value, maxIDRunes)), assumptionFrom(k, a))
	}
	b.WriteString("\n")
}

func writeSizeBill(b *strings.Builder, s *contract.SizeBill) {
	hottest := "unknown (no recovery target)"
	if s.HottestTarget != nil {
		hottest = strconv.Itoa(*s.HottestTarget) + " %"
	}
	dead := "no"
	if s.DeadBand {
		dead = "**yes: never scales on saturation**"
	}
	fmt.Fprintf(b, "**Size bill** · growth factor %s · round %s · dead band %s · hottest target %s\n\n",
		num(s.GrowthFactor), secs(float64(s.RoundSeconds)), dead, hottest)
	if len(s.Overloads) == 0 {
		return
	}
	b.WriteString("| Overload | Rounds (bound) | Time to capacity | Peak backlog | Peak wait | Peak pods / needed | Overshoot | Drained at |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, o := range s.Overloads {
		rounds := "never"
		if o.Rounds != nil {
			rounds = strconv.Itoa(*o.Rounds)
		}
		fmt.Fprintf(b, "| %s | %s (%s) | %s | %s | %s | %d / %d | %s× | %s |\n",
			overloadK(o.K), rounds, boundText(o.RoundsBound), secsPtr(o.TimeToCapacitySeconds, "never"),
			num(o.PeakBacklog), secs(o.PeakWaitSeconds), o.PeakReplicas, o.NeededReplicas,
			num(o.Overshoot), secsPtr(o.DrainedAtSeconds, "never"))
	}
	b.WriteString("\n")
	if len(s.RoundsCurve) > 0 {
		var pts []string
		for _, p := range s.RoundsCurve {
			rounds := "never"
			if p.Rounds != nil {
				rounds = strconv.Itoa(*p.Rounds)
			}
			pts = append(pts, fmt.Sprintf("%s %s (%s)", overloadK(p.K), rounds, boundText(p.Bound)))
		}
		fmt.Fprintf(b, "Rounds against overload, simulated (bound): %s\n\n", strings.Join(pts, " · "))
	}
	if o := largestOverload(s); o != nil && len(o.ScaleEvents) > 0 {
		var ev []string
		for i, e := range o.ScaleEvents {
			if i == maxScaleEvents {
				ev = append(ev, fmt.Sprintf("…and %d more", len(o.ScaleEvents)-i))
				break
			}
			ev = append(ev, fmt.Sprintf("%d→%d @%s", e.From, e.To, secs(float64(e.T))))
		}
		fmt.Fprintf(b, "Scale events at %s: %s\n\n", overloadK(o.K), strings.Join(ev, ", "))
	}
}

func writeTimeBill(b *strings.Builder, t *contract.TimeBill) {
	verdict := "**rests**"
	if t.Hunts {
		verdict = "**hunts**"
	}
	fmt.Fprintf(b, "**Time bill** · standing delay %s vs %s required → %s\n\n",
		secs(t.StandingDelaySeconds), secs(t.RequiredStandingDelaySeconds), verdict)
	b.WriteString("| Figure | Value |\n|---|---:|\n")
	row := func(k, v string) { fmt.Fprintf(b, "| %s | %s |\n", k, v) }
	row("Standing delay D = T/c", secs(t.StandingDelaySeconds))
	row("Required delay τ·Φ(W/τ)", secs(t.RequiredStandingDelaySeconds))
	row("Margin", secs(t.MarginSeconds))
	row("Φ(w)", num(t.Phi))
	row("w = W/τ", num(t.WindowInDeadTimes))
	row(fmt.Sprintf("Replica band (last %s)", hoursText(t.StatsWindowSeconds)), fmt.Sprintf("%d..%d", t.ReplicasMin, t.ReplicasMax))
	row("p5 / mean / p95", fmt.Sprintf("%s / %s / %s", num(t.ReplicasP5), num(t.ReplicasMean), num(t.ReplicasP95)))
	row("Needed", strconv.Itoa(t.NeededReplicas))
	row("Swing (max − min) / needed", pct(t.SwingFraction))
	row("Mean over need", signedPct(t.MeanOverNeed))
	row("Latency floor τ_eff·Φ", secs(t.LatencyFloorSeconds))
	b.WriteString("\n")
	threshold := "none"
	if t.ThresholdToRest != nil {
		threshold = num(*t.ThresholdToRest) + " per pod"
	}
	fmt.Fprintf(b, "**Remedies to rest** · threshold %s · window %s · dead time %s\n\n",
		threshold, secsPtr(t.WindowToRest, "none"), secsPtr(t.DeadTimeToRest, "none"))
}

// writeMdFindings lists findings worst first with their fix and location.
func writeMdFindings(b *strings.Builder, fs []contract.Finding) {
	for _, f := range sortedFindings(fs) {
		icon, sev := severityIcon(f.Severity), mdText(f.Severity)
		if f.Ignored {
			icon, sev = "🔕", "ignored "+sev
		}
		fmt.Fprintf(b, "- %s **%s** %s: %s", icon, sev, mdText(f.Check), mdText(ellipsize(f.Message, maxMessageRunes)))
		if f.Ignored && f.IgnoreReason != "" {
			fmt.Fprintf(b, " (ignored: %s)", mdText(ellipsize(f.IgnoreReason, maxMessageRunes)))
		}
		if f.Remediation != "" {
			fmt.Fprintf(b, "<br>**Fix:** %s", mdText(ellipsize(f.Remediation, maxMessageRunes)))
		}
		if len(f.RestsOn) > 0 {
			fmt.Fprintf(b, "<br>**Rests on:** %s", mdText(ellipsize(RestsOnText(f), maxMessageRunes)))
		}
		if f.Location != nil && f.Location.File != "" {
			fmt.Fprintf(b, "<br>at %s", mdText(ellipsize(f.Location.String(), maxMessageRunes)))
		}
		b.WriteString("\n")
	}
}

// ImagesMarkdown shows hosted plots inline, one per line (the report's
// and the diff's details).
func ImagesMarkdown(ims []Image) string {
	var b strings.Builder
	for _, im := range ims {
		u, err := url.Parse(im.URL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
			continue // only absolute web links; never javascript: or data:
		}
		link := strings.NewReplacer("(", "%28", ")", "%29", " ", "%20").Replace(u.String())
		fmt.Fprintf(&b, "![%s](%s)\n\n", mdText(ellipsize(im.Alt, maxIDRunes)), link)
	}
	return b.String()
}

// verdictText is the verdict with its reason ("warn (rests on defaults)").
func verdictText(w contract.Workload) string {
	if w.VerdictReason == "" {
		return w.Verdict
	}
	return w.Verdict + " (" + w.VerdictReason + ")"
}

// deliveryMarkdown is the delivery chain and partial mark of a workload a
// GitOps object delivered; "" for one rendered on its own.
func deliveryMarkdown(l contract.Location) string {
	var b strings.Builder
	if chain := l.ChainString(); chain != "" {
		fmt.Fprintf(&b, "**Delivered by** %s\n\n", mdText(ellipsize(chain, maxMessageRunes)))
	}
	if l.Partial {
		b.WriteString("**Partial render:** the source was rendered without something it refers to; see the findings.\n\n")
	}
	return b.String()
}

// assumptionFrom is the From cell of an assumption: provenance (a default
// in bold), where it was set, and how a measured value was measured.
func assumptionFrom(key string, a contract.Assumption) string {
	from := mdText(a.From)
	if a.From == "default" {
		from = "**default**"
	}
	if a.Where != nil && a.Where.File != "" {
		from += " (" + mdText(ellipsize(a.Where.String(), maxIDRunes)) + ")"
	}
	if m := a.Measured.Summary(key); m != "" {
		from += ", " + mdText(m)
	}
	return from
}
