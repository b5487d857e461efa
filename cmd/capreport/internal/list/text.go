package list

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/render"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/rules"
)

func place(p contract.InventoryPlace) string {
	return contract.Location{File: p.File, Line: p.Line, Source: p.Source}.String()
}

// writeText prints the human listing; columns are aligned with tabwriter
// so that it reads well in a terminal and in a pipe alike. Names, reasons
// and messages come from manifests: every line is made terminal-safe (no
// escape sequence in a name can reach the terminal) on its way out.
func (out listOutput) writeText(w io.Writer) error {
	var buf bytes.Buffer
	if err := out.writeTextTo(&buf); err != nil {
		return err
	}
	for _, line := range strings.SplitAfter(buf.String(), "\n") {
		nl := strings.HasSuffix(line, "\n")
		line = report.TerminalSafe(strings.TrimSuffix(line, "\n"))
		if nl {
			line += "\n"
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	return nil
}

// writeTextTo writes the listing before writeText makes it terminal-safe:
// the autoscalers, then the sources, the skipped objects and the findings
// that belong to no autoscaler.
func (out listOutput) writeTextTo(w io.Writer) error {
	ew := &errWriter{w: w}
	fmt.Fprintf(ew, "Autoscalers: %d\n", len(out.Autoscalers))
	if line := gitopsLine(out.Sources, out.Findings, len(out.Autoscalers)); line != "" {
		fmt.Fprintf(ew, "%s\n", line)
	}
	for _, a := range out.Autoscalers {
		if err := writeAutoscalerText(ew, a); err != nil {
			return err
		}
	}
	if err := writeSourcesText(ew, out.Sources); err != nil {
		return err
	}
	writeSkippedText(ew, out.Skipped)
	writeFindings(ew, "\nFindings:", "  ", out.Findings)
	return ew.err
}

// writeAutoscalerText writes one autoscaler's block: its fields, then its
// metrics and assumptions as tables of their own. Each table is flushed
// before the next heading goes to w directly, so that its rows come out
// ahead of that heading and it aligns only its own columns.
func writeAutoscalerText(w io.Writer, a contract.InventoryAutoscaler) error {
	fmt.Fprintf(w, "\n%s %s/%s (%s)\n", a.Kind, nsOrNone(a.Namespace), a.Name, a.APIVersion)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	writeAutoscalerFields(tw, a)
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "  metrics:\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, m := range a.Metrics {
		fmt.Fprintf(tw, "    %s\t%s\t%s %s\t%s%s\n", m.Type, metricName(m), m.TargetType, m.Target, m.Signal, metricExtra(m))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "  assumptions:\n")
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, r := range a.Assumptions {
		fmt.Fprintf(tw, "    %s\t%s\t%s\n", strings.TrimSuffix(r.Key, "Seconds"), r.Text, assumptionOrigin(r))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	writeIgnores(w, a.Ignores)
	writeFindings(w, "  findings:", "    ", a.Findings)
	return nil
}

// writeAutoscalerFields writes the key/value rows at the head of an
// autoscaler's block into tw, which the caller flushes. Rows that would
// only repeat the obvious (an HPA named like its autoscaler, no behavior,
// a priced autoscaler) are left out to keep the block short.
func writeAutoscalerFields(tw io.Writer, a contract.InventoryAutoscaler) {
	fmt.Fprintf(tw, "  id\t%s\n", a.ID)
	fmt.Fprintf(tw, "  source\t%s\n", place(a.Source))
	writeDelivery(tw, a.Source)
	if a.HPAName != a.Name {
		fmt.Fprintf(tw, "  hpa\t%s\n", a.HPAName)
	}
	fmt.Fprintf(tw, "  target\t%s\n", targetText(a.Target))
	fmt.Fprintf(tw, "  signal\t%s (%s)\n", a.Signal, a.SignalFrom)
	fmt.Fprintf(tw, "  replicas\tmin %d, max %d\n", a.MinReplicas, a.MaxReplicas)
	if a.KEDA != nil {
		fmt.Fprintf(tw, "  keda\t%s\n", kedaText(a.KEDA))
	}
	if a.Behavior != nil {
		fmt.Fprintf(tw, "  behavior\tset\n")
	}
	if a.Unpriced != "" {
		fmt.Fprintf(tw, "  unpriced\t%s\n", a.Unpriced)
	}
}

// kedaText is a ScaledObject's keda row: where its floor comes from, the
// HPA's own floor, and how KEDA's operator moves between them ("minReplicaCount
// 0 (default), HPA min 1, polling 30s, cooldown 5m, activation kafka > 0").
func kedaText(k *contract.KEDA) string {
	s := fmt.Sprintf("minReplicaCount %d (%s)", k.MinReplicaCount, k.MinReplicaCountFrom)
	if k.IdleReplicaCount != nil {
		s += fmt.Sprintf(", idleReplicaCount %d", *k.IdleReplicaCount)
	}
	s += fmt.Sprintf(", HPA min %d, polling %s, cooldown %s", k.HPAMinReplicas,
		rules.FormatDuration(k.PollingIntervalSeconds), rules.FormatDuration(k.CooldownPeriodSeconds))
	if k.ActivationTarget != nil {
		// With a formula KEDA ignores each trigger's own threshold.
		s += ", activation composite > " + fmtFloat(*k.ActivationTarget)
	} else {
		for _, act := range k.Activations {
			s += fmt.Sprintf(", activation %s > %s", act.Type, fmtFloat(act.Threshold))
		}
	}
	if k.ScalesToZero {
		s += "; scales to zero"
	}
	return s
}

// targetText is the target row: the reference, then what pricing read off
// the rendered workload, or a note that it was not rendered (so nothing
// could be read).
func targetText(t contract.InventoryTarget) string {
	target := t.Kind + "/" + t.Name
	if !t.Found {
		return target + "  (not rendered)"
	}
	target += fmt.Sprintf("  requests cpu %dm memory %s, %d container(s), at %s", t.CPURequestMilli,
		fmtBytes(t.MemoryRequestBytes), t.Containers, place(contract.InventoryPlace{File: t.File, Line: t.Line}))
	if t.Replicas != nil {
		target += fmt.Sprintf(", replicas %d", *t.Replicas)
	}
	return target
}

// metricName names a metric, with the container a container-resource
// metric reads (two such metrics may differ only in that).
func metricName(m contract.InventoryMetric) string {
	if m.Container != "" {
		return m.Name + " (container " + m.Container + ")"
	}
	return m.Name
}

// metricExtra is what follows a metric's signal: its replica cap and the
// reason it was classified as it was, each only when there is one.
func metricExtra(m contract.InventoryMetric) string {
	extra := ""
	if m.ReplicaCap != nil {
		extra = fmt.Sprintf("  cap %d", *m.ReplicaCap)
	}
	if m.Reason != "" {
		extra += "  " + m.Reason
	}
	return extra
}

// writeIgnores writes an autoscaler's ignored checks sorted by check ID, so
// that the listing does not depend on map order.
func writeIgnores(w io.Writer, ignores map[string]string) {
	if len(ignores) == 0 {
		return
	}
	ids := make([]string, 0, len(ignores))
	for id := range ignores {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	fmt.Fprintf(w, "  ignores:\n")
	for _, id := range ids {
		fmt.Fprintf(w, "    %s: %s\n", id, ignores[id])
	}
}

// writeSourcesText writes one aligned row per rendered source; a chart
// rendered under several value sets is one row per set, named path@set.
func writeSourcesText(w io.Writer, sources []contract.InventorySource) error {
	fmt.Fprintf(w, "\nSources: %d\n", len(sources))
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, s := range sources {
		name := s.Path
		if s.ValueSet != "" {
			name += "@" + s.ValueSet
		}
		status := s.Status
		if s.Reason != "" {
			status += ": " + s.Reason
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d object(s)\t%s\n", name, s.Type, s.Objects, status)
	}
	return tw.Flush()
}

// writeSkippedText writes the objects that were read but not priced, with
// why; the section is left out when there are none.
func writeSkippedText(w io.Writer, skipped []contract.InventorySkipped) {
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintf(w, "\nSkipped: %d\n", len(skipped))
	for _, s := range skipped {
		fmt.Fprintf(w, "  %s %s/%s at %s: %s\n", s.Kind, nsOrNone(s.Namespace), s.Name, place(s.Source), s.Reason)
	}
}

func writeFindings(w io.Writer, title, indent string, fs []contract.InventoryFinding) {
	if len(fs) == 0 {
		return
	}
	fmt.Fprintln(w, title)
	for _, f := range fs {
		loc := ""
		if f.File != "" {
			loc = " (" + place(contract.InventoryPlace{File: f.File, Line: f.Line}) + ")"
		}
		fmt.Fprintf(w, "%s%s %s: %s%s\n", indent, f.Severity, f.Check, f.Message, loc)
		if f.Remediation != "" {
			fmt.Fprintf(w, "%s  fix: %s\n", indent, f.Remediation)
		}
	}
}

func nsOrNone(ns string) string {
	if ns == "" {
		return "(no namespace)"
	}
	return ns
}

func fmtBytes(b int64) string {
	switch {
	case b == 0:
		return "0"
	case b%(1<<30) == 0:
		return fmt.Sprintf("%dGi", b>>30)
	case b%(1<<20) == 0:
		return fmt.Sprintf("%dMi", b>>20)
	case b%(1<<10) == 0:
		return fmt.Sprintf("%dKi", b>>10)
	}
	return strconv.FormatInt(b, 10)
}

// errWriter keeps the first write error so the printing code stays flat.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return len(p), nil
	}
	n, err := e.w.Write(p)
	if err != nil {
		e.err = err
	}
	return n, nil
}

// gitopsLine says what the GitOps objects delivered and what they could
// not: a repository is never a clean zero over objects it skipped.
func gitopsLine(sources []contract.InventorySource, findings []contract.InventoryFinding, autoscalers int) string {
	notFollowed := 0
	for _, f := range findings {
		if f.Check == check.GitOpsNotFollowed {
			notFollowed++
		}
	}
	delivered := 0
	for _, s := range sources {
		if len(s.Chain) > 0 {
			delivered++
		}
	}
	var parts []string
	if delivered > 0 {
		parts = append(parts, fmt.Sprintf("%d GitOps deliveries rendered", delivered))
		if autoscalers == 0 {
			parts = append(parts, "they deliver no autoscaler")
		}
	}
	if notFollowed > 0 {
		parts = append(parts, fmt.Sprintf("%d GitOps objects not followed (see Findings): what they deliver is missing", notFollowed))
	}
	if n := withheldSources(sources); n > 0 {
		parts = append(parts, fmt.Sprintf("%d sources withheld by a failed build (see Skipped and Findings): they do not reach the cluster", n))
	}
	return strings.Join(parts, "; ")
}

func withheldSources(sources []contract.InventorySource) int {
	n := 0
	for _, s := range sources {
		if s.Status == string(render.StatusWithheld) {
			n++
		}
	}
	return n
}

// writeDelivery writes the delivery chain and the partial mark of an
// object a GitOps object delivered (nothing for one rendered on its own).
func writeDelivery(w io.Writer, p contract.InventoryPlace) {
	if chain := (contract.Location{File: p.File, Via: p.Via, Chain: p.Chain}).ChainString(); chain != "" {
		fmt.Fprintf(w, "  delivery\t%s\n", chain)
	}
	if p.Partial {
		fmt.Fprintf(w, "  partial\trendered without something it refers to (see Findings)\n")
	}
}

// assumptionOrigin says where an assumption's value came from: provenance,
// place, and how a measured value was measured.
func assumptionOrigin(r contract.InventoryAssumption) string {
	from := r.From
	if r.File != "" {
		from += " " + place(contract.InventoryPlace{File: r.File, Line: r.Line})
	}
	if r.Measured != nil {
		from += " (" + r.Measured.Summary(strings.TrimSuffix(r.Key, "Seconds")) + ")"
	}
	return from
}
