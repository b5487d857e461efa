// Package explain is `capreport explain ID [PATH]`: one workload's whole
// bill, with its checks and its timeline, as text or JSON.
package explain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/analyze/laws"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/internal/units"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/report"
	"github.com/capreport/capreport/rules"
)

// explainOptions are the inputs of `capreport explain`.
type explainOptions struct {
	ios     *cmdutil.IOStreams
	ctx     context.Context // the command's, set before runF
	render  cmdutil.RenderFlags
	version string // the build's, which the report names
	id      string
	path    string
	format  string
}

// NewCmdExplain prints one workload's whole bill with its timeline. runF,
// when set, receives the parsed options instead of running (flag-parsing
// tests).
func NewCmdExplain(f *cmdutil.Factory, runF func(*explainOptions) error) *cobra.Command {
	o := &explainOptions{ios: f.IOStreams, version: f.Version}
	cmd := &cobra.Command{
		Use: "explain ID [PATH]",
		Example: "  capreport explain shop/HorizontalPodAutoscaler/web ./deploy\n" +
			"  capreport explain web . -f values-prod.yaml",
		Short: "Print one workload's whole bill with its timeline",
		Long: "ID is namespace/Kind/name of the autoscaler as the ledger shows it; a unique suffix\n" +
			"(e.g. Kind/name or name) is enough. PATH defaults to the current directory.",
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx, o.id = cmd.Context(), args[0]
			if len(args) == 2 {
				o.path = args[1]
			}
			if runF != nil {
				return runF(o)
			}
			return runExplain(o)
		},
	}
	o.render.Register(cmd)
	cmd.Flags().StringVarP(&o.format, "format", "o", "text", "output format: text or json")
	return cmd
}

func runExplain(o *explainOptions) error {
	ios := o.ios
	if err := cmdutil.CheckFormat(o.format, "text", "json"); err != nil {
		return err
	}
	path := "."
	if o.path != "" {
		path = o.path
	}
	// The text bill prints timelines, not the rounds curve; JSON is the
	// workload whole.
	o.render.NoPlotCurves = o.format != "json"
	r, _, err := pipeline.Build(o.ctx, []string{path}, o.render.Settings(ios, cmdutil.ToolOf(o.version), nil))
	if err != nil {
		return err
	}
	w, err := findWorkload(r.Workloads, o.id)
	if err != nil {
		return err
	}
	if o.format == "json" {
		return cmdutil.WriteJSON(ios.Out, w)
	}
	// The ledger row and findings come from the text renderer on a report
	// of one; the timeline follows.
	one := *r
	one.Workloads = []contract.Workload{w}
	one.Sources, one.Findings = nil, nil
	one.Summary = contract.Summarize(&one)
	ro := report.DefaultOptions()
	ro.Color = ios.ColorEnabled()
	ro.NoFooter = true // the version goes last, after the bill
	text, err := report.Text(one, ro)
	if err != nil {
		return err
	}
	if _, err := ios.Out.Write(text); err != nil {
		return err
	}
	printBill(ios.Out, w, repositoryOf(r.Sources, w.Source.Source))
	printChecks(ios.Out, w)
	_, err = io.WriteString(ios.Out, report.TextFooter(one))
	return err
}

// findWorkload matches an id exactly, or by a unique suffix.
func findWorkload(ws []contract.Workload, id string) (contract.Workload, error) {
	var matches []contract.Workload
	for _, w := range ws {
		if w.ID == id {
			return w, nil
		}
		if strings.HasSuffix(w.ID, "/"+id) {
			matches = append(matches, w)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		ids := make([]string, 0, len(ws))
		for _, w := range ws {
			ids = append(ids, w.ID)
		}
		sort.Strings(ids)
		return contract.Workload{}, &cmdutil.UsageError{Msg: report.TerminalSafe(fmt.Sprintf("%v %q; the ledger has: %s", errNoWorkload, id, strings.Join(ids, ", ")))}
	}
	names := make([]string, len(matches))
	for i, m := range matches {
		names[i] = m.ID
	}
	return contract.Workload{}, &cmdutil.UsageError{Msg: report.TerminalSafe(fmt.Sprintf("%q is ambiguous: %s", id, strings.Join(names, ", ")))}
}

// repositoryOf is the repository decision of the source with ID id (a
// delivered source: which repository it was read from, and why).
func repositoryOf(sources []contract.Source, id string) string {
	for _, s := range sources {
		sid := s.Path
		if s.ValueSet != "" {
			sid += "@" + s.ValueSet
		}
		if sid == id {
			return s.Repository
		}
	}
	return ""
}

// printBill writes the figures behind the ledger row and the timeline of
// each run; repo is the source's repository decision ("" for none).
func printBill(w io.Writer, wl contract.Workload, repo string) {
	fmt.Fprintf(w, "\nSource\n  %s\n", report.TerminalSafe(wl.Source.String()))
	if chain := wl.Source.ChainString(); chain != "" {
		fmt.Fprintf(w, "  delivered by %s\n", report.TerminalSafe(chain))
	}
	if repo != "" {
		fmt.Fprintf(w, "  repository: %s\n", report.TerminalSafe(repo))
	}
	fmt.Fprintf(w, "\nAssumptions\n")
	keys := make([]string, 0, len(wl.Assumptions))
	for k := range wl.Assumptions {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	for _, k := range keys {
		a := wl.Assumptions[k]
		where := ""
		if a.Where != nil {
			where = fmt.Sprintf("%s:%d", a.Where.File, a.Where.Line)
		}
		if m := a.Measured.Summary(k); m != "" {
			where += " (" + m + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", k, report.TerminalSafe(a.Value), a.From, report.TerminalSafe(where))
	}
	tw.Flush()
	if s := wl.Size; s != nil {
		for _, o := range s.Overloads {
			fmt.Fprintf(w, "\n%gx overload: orders", o.K)
			for _, e := range o.ScaleEvents {
				fmt.Fprintf(w, " %d@%ds", e.To, e.T)
			}
			fmt.Fprintln(w)
			printTimeline(w, o.Timeline, true)
		}
	}
	if t := wl.Time; t != nil {
		printScaleFromZero(w, wl, t.ScaleFromZero)
		fmt.Fprintf(w, "\nLast two hours of the 20-hour run\n")
		printTimeline(w, t.Timeline, false)
	}
}

// printScaleFromZero writes the law of the first message's wait after an
// idle period, term by term, for a ScaledObject KEDA scales to zero.
func printScaleFromZero(w io.Writer, wl contract.Workload, z *contract.ScaleFromZero) {
	if z == nil {
		return
	}
	fmt.Fprintf(w, "\nScale from zero\n")
	fmt.Fprintf(w, "  replicas %d..%d: after %s without messages KEDA leaves no pod, and its HPA (min %d) does nothing at zero\n",
		wl.MinReplicas, wl.MaxReplicas, units.Duration(z.IdleAfterSeconds), hpaFloor(wl))
	fmt.Fprintf(w, "  the first message then waits up to %s = %s\n", units.Duration(z.FirstMessageWaitSeconds), rules.FirstMessageWaitTerms(z))
}

// printChecks names, for each law the bill rests on, the checks that
// stand behind it (analyze/laws.Evidence; docs/fidelity.md).
func printChecks(w io.Writer, wl contract.Workload) {
	var used []laws.Law
	if wl.KEDA != nil {
		used = append(used, laws.KEDAConversionLaw)
	}
	if wl.Size != nil {
		used = append(used, laws.RoundsLaw, laws.DeadBandLaw)
	}
	if wl.Time != nil {
		used = append(used, laws.StandingDelayLaw)
		if wl.Time.ScaleFromZero != nil {
			used = append(used, laws.FirstMessageLaw)
		}
	}
	if len(used) == 0 {
		return
	}
	fmt.Fprintf(w, "\nChecked by (docs/fidelity.md)\n")
	for _, law := range used {
		fmt.Fprintf(w, "  %s:\n", law)
		for _, c := range laws.Evidence(law) {
			fmt.Fprintf(w, "    %s (%s): %s\n", c.Name, c.Where, c.What)
		}
	}
}

// hpaFloor is the generated HPA's minReplicas of a ScaledObject, or the
// workload's own floor for an HPA.
func hpaFloor(wl contract.Workload) int32 {
	if wl.KEDA != nil {
		return wl.KEDA.HPAMinReplicas
	}
	return wl.MinReplicas
}

func printTimeline(w io.Writer, tl *contract.Timeline, wait bool) {
	if tl == nil || len(tl.T) == 0 {
		return
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', tabwriter.AlignRight)
	header := "  t (s)\treplicas\tserving\tneeded\tbacklog\t"
	if wait {
		header += "wait (s)\t"
	}
	fmt.Fprintln(tw, header)
	step := max(1, len(tl.T)/40)
	for i := 0; i < len(tl.T); i += step {
		fmt.Fprintf(tw, "  %d\t%d\t%d\t%.0f\t%.0f\t", tl.T[i], tl.Replicas[i], at(tl.Serving, i), atf(tl.Needed, i), atf(tl.Backlog, i))
		if wait {
			fmt.Fprintf(tw, "%.1f\t", atf(tl.Wait, i))
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

func at(xs []int32, i int) int32 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

func atf(xs []float64, i int) float64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

var errNoWorkload = errors.New("no such workload")
