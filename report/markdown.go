package report

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/report/internal/mdoc"
)

// Marker is the hidden first line of every comment body; the GitHub client
// finds its sticky comment by it.
const Marker = mdoc.Marker

// GitHubCommentLimit is GitHub's limit on a comment body, in characters.
const GitHubCommentLimit = mdoc.GitHubCommentLimit

// Caps on manifest text inside the comment, so one absurd name or message
// cannot take the budget of the whole comment.
const (
	maxIDRunes      = mdoc.MaxIDRunes
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
	b := buildMarkdown(r, o, commentMedium{}, o.MaxChars)
	// When every cut is made, only the findings outside any workload or
	// the failed sources can still be too long: the head and the notice
	// stay, the rest is cut at a line (the Doc's Overflow).
	return []byte(b.doc.Fit(o.MaxChars,
		// 1. Details, least bad first: keep the longest prefix that fits.
		mdoc.Prefix(b.details),
		// 2. Sources that rendered: failed ones stay, they explain gaps.
		mdoc.Drop(b.sources),
		// 3. Ledger rows beyond what fits collapse into one line.
		mdoc.Prefix(b.ledger),
	)), nil
}

// mdBody is the report's Markdown document with the blocks Markdown cuts.
type mdBody struct {
	doc                      *mdoc.Doc
	ledger, details, sources *mdoc.Block
}

// medium is where a Markdown body is read: the pull-request comment
// (commentMedium) or the HTML page (html.go's pageMedium). The text is the
// same; how details open and how pictures are shown differ.
type medium interface {
	// openDetails says whether a workload's <details> start open.
	openDetails() bool
	// writePlots writes a workload's pictures; withChart says it is among
	// the workloads the budget gives a chart.
	writePlots(b *strings.Builder, w contract.Workload, o Options, withChart bool)
	// mark is raw HTML that tags a workload's ledger row and details for
	// the page's filters ("" in the comment, where it would be stripped).
	mark(w contract.Workload) string
}

// buildMarkdown renders every piece for the medium m, to be cut to limit
// bytes (the details that could not fit are not written).
func buildMarkdown(r contract.Report, o Options, m medium, limit int) mdBody {
	lead := []string{headline(r.Summary)}
	if r.Root != "" {
		lead = append(lead, fmt.Sprintf("Scanned %s.", mdoc.Capped(r.Root, maxIDRunes)))
	}
	ws := WorstFirst(r.Workloads)
	rows, withChart := make([]string, len(ws)), make([]bool, len(ws))
	charts := 0
	for i, w := range ws {
		rows[i] = ledgerRow(w, m.mark(w))
		if o.MaxCharts > 0 && charts < o.MaxCharts && w.Verdict != contract.VerdictUnpriced {
			if tl, _ := chartTimeline(w); tl != nil {
				withChart[i] = true
				charts++
			}
		}
	}
	b := mdBody{
		ledger: mdoc.Ledger("| Verdict | Autoscaler | Signal | Bill | Latency target | Findings |\n|---|---|---|---|---|---|\n", rows,
			func(n int) string {
				return fmt.Sprintf("\n…and %d more %s, worst first above.\n", n, plural(n, "autoscaler", "autoscalers"))
			}),
		details: mdoc.DetailsWithin(len(ws), limit, func(i int) string { return workloadDetails(ws[i], o, withChart[i], m) }),
		sources: sourcesBlock(r.Sources),
	}
	gitops, others := splitNotFollowed(r.Findings)
	foot := []string{mdoc.Text(joinNonEmpty(" ", r.Tool.Name, r.Tool.Version))}
	if r.GeneratedAt != "" {
		foot = append(foot, mdoc.Text(r.GeneratedAt))
	}
	b.doc = &mdoc.Doc{
		Title:     mdoc.Text(o.Title),
		Lead:      lead,
		Note:      o.Note,
		Blocks:    []*mdoc.Block{b.ledger, mdoc.Fixed(gitopsMarkdown(gitops)), b.details, mdoc.Fixed(findingsMarkdown(others)), b.sources},
		Foot:      append(foot, mdoc.Text(contract.SchemaVersion)),
		LimitName: o.LimitName,
		Whole:     "The JSON and HTML reports carry everything.",
		Overflow:  "\n\n…cut: the rest of this comment did not fit; see the JSON report.\n",
	}
	return b
}

// gitopsMarkdown lists the GitOps objects not followed, above the details;
// "" without any.
func gitopsMarkdown(gitops []contract.Finding) string {
	if len(gitops) == 0 {
		return ""
	}
	var f strings.Builder
	fmt.Fprintf(&f, "\n### %d GitOps %s not followed\n\nWhat %s is missing from this report.\n\n",
		len(gitops), plural(len(gitops), "object", "objects"), plural(len(gitops), "it delivers", "they deliver"))
	writeMdFindings(&f, gitops)
	f.WriteString("\n")
	return f.String()
}

// findingsMarkdown lists the findings outside any workload; "" without
// any.
func findingsMarkdown(others []contract.Finding) string {
	if len(others) == 0 {
		return ""
	}
	var f strings.Builder
	f.WriteString("### Findings outside any autoscaler\n\n")
	writeMdFindings(&f, others)
	f.WriteString("\n")
	return f.String()
}

// sourcesBlock is the closed table of sources, the failed first: they
// explain missing workloads, so no cut removes them.
func sourcesBlock(sources []contract.Source) *mdoc.Block {
	var failed, other []string
	for _, s := range sources {
		row := fmt.Sprintf("| %s %s | %s | %s | %d | %s |\n", statusIcon(s.Status), mdoc.Text(s.Status),
			mdoc.Capped(sourceName(s), maxIDRunes), mdoc.Text(s.Type), s.Objects,
			mdoc.Capped(s.Reason, maxMessageRunes))
		if s.Status == "failed" {
			failed = append(failed, row)
		} else {
			other = append(other, row)
		}
	}
	return &mdoc.Block{
		Head: fmt.Sprintf("<details><summary>Sources: %d rendered, %d failed</summary>\n\n| Status | Source | Type | Objects | Reason |\n|---|---|---|---:|---|\n",
			len(other), len(failed)),
		Items: append(failed, other...),
		Keep:  len(failed),
		More:  func(n int) string { return fmt.Sprintf("| | …and %d more | | | |\n", n) },
		End:   "\n</details>\n\n",
		Noun: func(n int) string {
			return fmt.Sprintf("%d rendered %s", n, plural(n, "source", "sources"))
		},
	}
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
	return fmt.Sprintf("%s %s vs %s (%s)", icon, secs(l.ExpectedSeconds), secs(l.TargetSeconds), mdoc.Text(l.Basis))
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

func ledgerRow(w contract.Workload, mark string) string {
	return fmt.Sprintf("| %s%s %s | %s | %s | %s | %s | %s |\n",
		mark, verdictIcon(w.Verdict), mdoc.Text(verdictText(w)), mdoc.Capped(w.ID, maxIDRunes), mdoc.Text(w.Signal),
		mdoc.Capped(billKey(w), maxMessageRunes), latencyCell(w.Latency), findingsCell(w.Findings))
}

// workloadDetails is the <details> block with one workload's full bill.
func workloadDetails(w contract.Workload, o Options, withChart bool, m medium) string {
	var b strings.Builder
	writeDetailsHead(&b, w, m)
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
func writeDetailsHead(b *strings.Builder, w contract.Workload, m medium) {
	head := mdoc.OpenDetails(m.openDetails(), verdictIcon(w.Verdict), w.ID, verdictText(w), w.Signal)
	b.WriteString(strings.Replace(head, "<summary>", "<summary>"+m.mark(w), 1))

	found := "found"
	if !w.TargetFound {
		found = "**not found**"
	}
	fmt.Fprintf(b, "**Target** %s (%s) · **Source** %s · **Replicas** %d..%d\n\n",
		mdoc.Capped(refString(w.Target), maxIDRunes), found,
		mdoc.Capped(w.Source.String(), maxMessageRunes), w.MinReplicas, w.MaxReplicas)
	b.WriteString(deliveryMarkdown(w.Source))
	if len(w.Metrics) > 0 {
		var ms []string
		for _, m := range w.Metrics {
			s := joinNonEmpty(" ", m.Type, m.Name, m.Target)
			if m.Trigger != "" {
				s += " (KEDA " + m.Trigger + ")"
			}
			ms = append(ms, mdoc.Capped(s, maxIDRunes)+" → "+mdoc.Text(m.Signal))
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
		fmt.Fprintf(b, "**Not priced:** %s\n\n", mdoc.Capped(reason, maxMessageRunes))
	}
}

// commentMedium is the pull-request comment (and the job summary): a
// workload's details start closed, to keep the ledger short, and its
// pictures are the Mermaid chart GitHub draws, links to the plot files and
// the uploaded images.
type commentMedium struct{}

func (commentMedium) openDetails() bool { return false }

func (commentMedium) mark(contract.Workload) string { return "" }

func (commentMedium) writePlots(b *strings.Builder, w contract.Workload, o Options, withChart bool) {
	if withChart {
		b.WriteString(mermaidChart(chartTimeline(w)))
	}
	if paths := o.Plots[w.ID]; len(paths) > 0 {
		var links []string
		for _, p := range paths {
			u := url.URL{Path: p}
			links = append(links, fmt.Sprintf("[%s](%s)", mdoc.Text(p), u.EscapedPath()))
		}
		fmt.Fprintf(b, "**Plots** %s\n\n", strings.Join(links, " · "))
	}
	b.WriteString(mdoc.Images(o.Images[w.ID]))
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
		fmt.Fprintf(b, "| %s | %s | %s |\n", mdoc.Capped(k, maxIDRunes), mdoc.Capped(a.Value, maxIDRunes), assumptionFrom(k, a))
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
	if z := t.ScaleFromZero; z != nil {
		row("First message after idle (from zero)", secs(z.FirstMessageWaitSeconds))
	}
	b.WriteString("\n")
	writeScaleFromZero(b, t.ScaleFromZero)
	threshold := "none"
	if t.ThresholdToRest != nil {
		threshold = num(*t.ThresholdToRest) + " per pod"
	}
	fmt.Fprintf(b, "**Remedies to rest** · threshold %s · window %s · dead time %s\n\n",
		threshold, secsPtr(t.WindowToRest, "none"), secsPtr(t.DeadTimeToRest, "none"))
}

// writeScaleFromZero spells out the first message's wait after an idle
// period, term by term, for a consumer KEDA scales to zero.
func writeScaleFromZero(b *strings.Builder, z *contract.ScaleFromZero) {
	if z == nil {
		return
	}
	activation := ""
	if z.ActivationWaitSeconds > 0 {
		activation = fmt.Sprintf("%s for the %s messages that activate it + ", secs(z.ActivationWaitSeconds), num(z.ActivationMessages))
	}
	fmt.Fprintf(b, "**Scale from zero** · after %s without messages KEDA leaves no pod; the first message then waits up to %s = %spolling interval %s + dead time %s\n\n",
		secs(z.IdleAfterSeconds), secs(z.FirstMessageWaitSeconds), activation, secs(z.PollingIntervalSeconds), secs(z.DeadTimeSeconds))
}

// writeMdFindings lists findings worst first with their fix and location.
func writeMdFindings(b *strings.Builder, fs []contract.Finding) {
	for _, f := range sortedFindings(fs) {
		icon, sev := severityIcon(f.Severity), mdoc.Text(f.Severity)
		if f.Ignored {
			icon, sev = "🔕", "ignored "+sev
		}
		fmt.Fprintf(b, "- %s **%s** %s: %s", icon, sev, mdoc.Text(f.Check), mdoc.Capped(f.Message, maxMessageRunes))
		if f.Ignored && f.IgnoreReason != "" {
			fmt.Fprintf(b, " (ignored: %s)", mdoc.Capped(f.IgnoreReason, maxMessageRunes))
		}
		if f.Remediation != "" {
			fmt.Fprintf(b, "<br>**Fix:** %s", mdoc.Capped(f.Remediation, maxMessageRunes))
		}
		if len(f.RestsOn) > 0 {
			fmt.Fprintf(b, "<br>**Rests on:** %s", mdoc.Capped(RestsOnText(f), maxMessageRunes))
		}
		if f.Location != nil && f.Location.File != "" {
			fmt.Fprintf(b, "<br>at %s", mdoc.Capped(f.Location.String(), maxMessageRunes))
		}
		b.WriteString("\n")
	}
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
		fmt.Fprintf(&b, "**Delivered by** %s\n\n", mdoc.Capped(chain, maxMessageRunes))
	}
	if l.Partial {
		b.WriteString("**Partial render:** the source was rendered without something it refers to; see the findings.\n\n")
	}
	return b.String()
}

// assumptionFrom is the From cell of an assumption: provenance (a default
// in bold), where it was set, and how a measured value was measured.
func assumptionFrom(key string, a contract.Assumption) string {
	from := mdoc.Text(a.From)
	if a.From == "default" {
		from = "**default**"
	}
	if a.Where != nil && a.Where.File != "" {
		from += " (" + mdoc.Capped(a.Where.String(), maxIDRunes) + ")"
	}
	if m := a.Measured.Summary(key); m != "" {
		from += ", " + mdoc.Text(m)
	}
	return from
}
