// Package calibratecmd is `capreport calibrate`: it measures the dead time
// and pod rate of each autoscaled workload in Prometheus and writes them
// into .capreport.yaml (or prints the change with --dry-run). The name is
// calibratecmd because the measuring itself is the calibrate package.
package calibratecmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/calibrate"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/internal/atomicfile"
	"github.com/capreport/capreport/internal/safefile"
	"github.com/capreport/capreport/pipeline"
)

// calibrateOptions are the flags of `capreport calibrate`, and what tests
// inject (the environment, the clock, the client).
type calibrateOptions struct {
	ios        *cmdutil.IOStreams
	ctx        context.Context // the command's, set before runF
	render     cmdutil.RenderFlags
	path       string
	prometheus string
	since      string
	step       time.Duration
	timeout    time.Duration
	quantile   float64
	minPods    int
	minSamples int
	caFile     string
	insecure   bool
	dryRun     bool

	getenv    func(string) string
	now       func() time.Time
	newSource func(calibrate.ClientOptions) (calibrate.Source, error)
	queries   int // issued by the last run, for tests
}

// NewCmdCalibrate builds the command; runF, when set, receives the parsed
// options instead of running (flag-parsing tests).
func NewCmdCalibrate(f *cmdutil.Factory, runF func(*calibrateOptions) error) *cobra.Command {
	o := &calibrateOptions{ios: f.IOStreams, getenv: f.Getenv, now: f.Now, newSource: calibrate.NewClient}
	cmd := &cobra.Command{
		Use: "calibrate --prometheus URL [PATH]",
		Example: "  capreport calibrate --prometheus http://localhost:9090 ./deploy\n" +
			"  capreport calibrate --prometheus https://prom.example --since 36h --dry-run .",
		Short: "Measure dead times, pod rates and demand from Prometheus and write them into .capreport.yaml",
		Long: "calibrate finds the autoscaled workloads of PATH (default .) like list does, measures each one's\n" +
			"dead time (pod creation to Ready, kube-state-metrics), pod rate (served requests over CPU use per\n" +
			"request, or messages consumed per pod), demand (the median rate) and a design overload (peak over\n" +
			"median) from the server's history, and writes them into .capreport.yaml's workloads: entries with\n" +
			"a measured: record, keeping the file's comments and order. A measurement with too few samples or\n" +
			"too wide a spread is reported and not written.\n\n" +
			"Credentials come from the environment: CAPREPORT_PROMETHEUS_TOKEN (bearer), or\n" +
			"CAPREPORT_PROMETHEUS_USER and CAPREPORT_PROMETHEUS_PASSWORD (basic auth).",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx, o.path = cmd.Context(), cmdutil.ArgPath(args)
			if runF != nil {
				return runF(o)
			}
			return runCalibrate(o)
		},
	}
	o.render.Register(cmd)
	fl := cmd.Flags()
	fl.StringVar(&o.prometheus, "prometheus", "", "base URL of the Prometheus HTTP API (required), e.g. http://prometheus.monitoring:9090")
	fl.StringVar(&o.since, "since", "7d", "how far back to look: pods created in it, rates over it (e.g. 7d, 36h)")
	fl.DurationVar(&o.step, "step", 5*time.Minute, "rate resolution (the range queries' step and rate window)")
	fl.DurationVar(&o.timeout, "timeout", time.Minute, "time limit of each query")
	fl.Float64Var(&o.quantile, "quantile", 0.9, "quantile of the pods' dead times to write, in (0, 1]")
	fl.IntVar(&o.minPods, "min-pods", 5, "fewest pods a dead time may rest on")
	fl.IntVar(&o.minSamples, "min-samples", 12, "fewest rate samples a pod rate or demand may rest on")
	fl.StringVar(&o.caFile, "ca-file", "", "PEM file of the CA that signed the server's certificate")
	fl.BoolVar(&o.insecure, "insecure-skip-tls-verify", false, "do not verify the server's certificate")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print the change to .capreport.yaml as a unified diff instead of writing it")
	return cmd
}

// check validates the flags; since is returned parsed.
func (o *calibrateOptions) check() (time.Duration, error) {
	if o.prometheus == "" {
		return 0, cmdutil.FlagErrorf("prometheus", "required: the base URL of the cluster's Prometheus")
	}
	since, err := config.ParseWindow(o.since)
	if err != nil {
		return 0, cmdutil.FlagErrorf("since", "%v", err)
	}
	switch {
	case o.quantile <= 0 || o.quantile > 1:
		return 0, cmdutil.FlagErrorf("quantile", "%g is not in (0, 1]", o.quantile)
	case o.step <= 0 || o.step > since:
		return 0, cmdutil.FlagErrorf("step", "%s must be positive and at most --since", o.step)
	case o.timeout < 0:
		return 0, cmdutil.FlagErrorf("timeout", "%s is negative", o.timeout)
	case o.minPods < 1 || o.minSamples < 1:
		return 0, cmdutil.FlagErrorf("min-pods", "--min-pods and --min-samples must be at least 1")
	}
	return since, nil
}

func runCalibrate(o *calibrateOptions) error {
	ctx, ios := o.ctx, o.ios
	since, err := o.check()
	if err != nil {
		return err
	}
	src, err := o.newSource(calibrate.ClientOptions{URL: o.prometheus, Token: o.getenv("CAPREPORT_PROMETHEUS_TOKEN"),
		User: o.getenv("CAPREPORT_PROMETHEUS_USER"), Password: o.getenv("CAPREPORT_PROMETHEUS_PASSWORD"),
		CAFile: o.caFile, Insecure: o.insecure, Timeout: o.timeout})
	if err != nil {
		return cmdutil.FlagErrorf("prometheus", "%v", err)
	}
	rp, err := pipeline.Load(ctx, []string{o.path}, o.render.LoadSettings(ios.ErrOut))
	if err != nil {
		return err
	}
	ws := calibrationTargets(rp.Inventory, rp.Config)
	counted := &calibrate.Counting{Source: src}
	opts := calibrate.Options{Now: o.now(), Since: since, Step: o.step, Quantile: o.quantile,
		MinPods: o.minPods, MinSamples: o.minSamples}
	results, err := calibrate.Run(ctx, counted, ws, opts, calibrateProgress(ios, len(ws)))
	o.queries = counted.Queries()
	if err != nil {
		return fmt.Errorf("--prometheus %s: %w", o.prometheus, err)
	}
	reportCalibration(ios, results)
	return writeCalibration(ios, o, rp, results, len(ws))
}

// calibrationTargets are the inventory's autoscaled workloads, one per
// target, with what an annotation already states left out.
func calibrationTargets(inv *analyze.Inventory, cfg *config.Config) []calibrate.Workload {
	seen := map[string]bool{}
	var out []calibrate.Workload
	for _, a := range inv.Autoscalers {
		if !a.Target.Found {
			continue
		}
		w := calibrate.Workload{ID: a.ID, Namespace: a.Target.Namespace, Kind: a.Target.Kind, Name: a.Target.Name}
		if w.Namespace == "" {
			w.Namespace = "default"
		}
		if seen[w.Ref()] {
			continue
		}
		seen[w.Ref()] = true
		switch a.Signal {
		case analyze.SignalSaturating:
			w.Row = calibrate.RowSize
		case analyze.SignalBacklog:
			w.Row = calibrate.RowTime
		}
		if a.Kind == "ScaledObject" {
			w.ScaledObject = a.Name
		}
		w.Skip = annotated(a.Assumptions)
		for _, e := range cfg.Workloads {
			if e.Matches(w.Namespace, w.Kind, w.Name) || e.Matches(w.Namespace, a.Kind, a.Name) {
				w.RequestQuery = firstNonEmpty(e.Queries.RequestRate, w.RequestQuery)
				w.ConsumerQuery = firstNonEmpty(e.Queries.ConsumerRate, w.ConsumerQuery)
			}
		}
		out = append(out, w)
	}
	return out
}

// annotated lists the measured keys an annotation states: it would win
// over the file, so calibrate does not write them.
func annotated(as analyze.Assumptions) map[config.Key]bool {
	m := map[config.Key]bool{}
	for k, from := range map[config.Key]string{config.KeyDeadTime: as.DeadTime.From, config.KeyPodRate: as.PodRate.From,
		config.KeyDemand: as.Demand.From, config.KeyOverload: as.Overload.From} {
		if from == analyze.FromAnnotation {
			m[k] = true
		}
	}
	return m
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// calibrateProgress draws a bar on a terminal's stderr; nil elsewhere.
func calibrateProgress(ios *cmdutil.IOStreams, total int) func(int) {
	if !ios.IsStderrTTY() || total == 0 {
		return nil
	}
	bar := progressbar.NewOptions(total, progressbar.OptionSetWriter(ios.ErrOut),
		progressbar.OptionSetDescription("querying Prometheus"), progressbar.OptionClearOnFinish())
	return func(done int) { _ = bar.Set(done) }
}

// reportCalibration prints each value, finding and note to stderr.
func reportCalibration(ios *cmdutil.IOStreams, results []calibrate.Result) {
	for _, r := range results {
		for _, v := range r.Values {
			fmt.Fprintf(ios.ErrOut, "%s: %s %s (%s)\n", r.Workload.Ref(), v.Key.YAMLName(), v.Text,
				v.Record.Summary(config.SampleUnit(v.Key)))
		}
		for _, f := range r.Unwritten {
			fmt.Fprintf(ios.ErrOut, "finding: %s\n", f)
		}
		for _, n := range r.Notes {
			fmt.Fprintf(ios.ErrOut, "note: %s\n", n)
		}
	}
}

// writeCalibration edits the configuration file, or prints the diff.
func writeCalibration(ios *cmdutil.IOStreams, o *calibrateOptions, rp *pipeline.Repo, results []calibrate.Result, workloads int) error {
	file := rp.Config.File
	if file == "" {
		file = filepath.Join(o.path, config.FileName)
	}
	before, perm, err := readCalibrated(file)
	if err != nil {
		return err
	}
	after, changed, err := calibrate.Apply(file, before, results)
	if err != nil {
		return err
	}
	values := 0
	for _, r := range results {
		values += len(r.Values)
	}
	status := fmt.Sprintf("%d value(s) measured for %d workload(s) in %d queries", values, workloads, o.queries)
	switch {
	case !changed:
		fmt.Fprintf(ios.ErrOut, "%s; %s unchanged\n", status, file)
	case o.dryRun:
		fmt.Fprint(ios.Out, calibrate.Diff(filepath.ToSlash(file), before, after))
		fmt.Fprintf(ios.ErrOut, "%s; --dry-run: %s not written\n", status, file)
	default:
		if err := atomicfile.WriteFile(file, after, perm); err != nil {
			return fmt.Errorf("%w; calibrate writes only a regular file", err)
		}
		fmt.Fprintf(ios.ErrOut, "%s; wrote %s\n", status, file)
	}
	overridden(ios, file, after, results)
	return nil
}

// readCalibrated reads the configuration file calibrate edits, nil when
// there is none yet, and the permissions to keep. It is read as the
// repository's (never through a link, never a FIFO, within the bound),
// even when --config named it: calibrate writes it back, and a link is
// not written through.
func readCalibrated(file string) ([]byte, fs.FileMode, error) {
	data, err := safefile.ReadFile(file, config.MaxFileBytes, false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0o644, nil
	case err != nil:
		return nil, 0, fmt.Errorf("%w; calibrate edits only a regular file of at most %d bytes", err, config.MaxFileBytes)
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Lstat(file); err == nil {
		perm = fi.Mode().Perm()
	}
	return data, perm, nil
}

// overridden warns of a written value that a later entry (a glob) or an
// annotation still overrides.
func overridden(ios *cmdutil.IOStreams, file string, data []byte, results []calibrate.Result) {
	cfg, err := config.Parse(file, data)
	if err != nil {
		return
	}
	var msgs []string
	for _, r := range results {
		a, _ := cfg.WorkloadAssumptions(r.Workload.Namespace, config.ObjectRef{Kind: r.Workload.Kind, Name: r.Workload.Name})
		for _, v := range r.Values {
			if a.MeasuredOf(v.Key) == nil {
				msgs = append(msgs, fmt.Sprintf("warning: %s: a later workloads entry in %s sets %s and wins over the measured value", r.Workload.Ref(), file, v.Key.YAMLName()))
			}
		}
	}
	sort.Strings(msgs)
	if len(msgs) > 0 {
		fmt.Fprintln(ios.ErrOut, strings.Join(msgs, "\n"))
	}
}
