// Package initcmd is `capreport init`: it writes a starting .capreport.yaml
// for a repository, with the assumptions each autoscaler found still needs
// (assume.go), the value sets CI renders with (sets.go), and YAML that
// reads back as written (yaml.go). The name is initcmd because a package
// cannot be imported as init.
package initcmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/internal/atomicfile"
	"github.com/capreport/capreport/internal/safefile"
	"github.com/capreport/capreport/pipeline"
)

// initOptions are the inputs of `capreport init`.
type initOptions struct {
	ios    *cmdutil.IOStreams
	ctx    context.Context // the command's, set before runF
	render cmdutil.RenderFlags
	path   string
	force  bool
	stdout bool
}

// NewCmdInit writes a commented .capreport.yaml naming every discovered
// workload and the assumptions it lacks. runF, when set, receives the
// parsed options instead of running (flag-parsing tests).
func NewCmdInit(f *cmdutil.Factory, runF func(*initOptions) error) *cobra.Command {
	o := &initOptions{ios: f.IOStreams}
	cmd := &cobra.Command{
		Use: "init [PATH]",
		Example: "  capreport init ./deploy\n" +
			"  capreport init . --force",
		Short: "Write a commented .capreport.yaml naming every workload and the assumptions it lacks",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx, o.path = cmd.Context(), cmdutil.ArgPath(args)
			if runF != nil {
				return runF(o)
			}
			return runInit(o)
		},
	}
	o.render.Register(cmd)
	cmd.Flags().BoolVar(&o.force, "force", false, "overwrite an existing .capreport.yaml")
	cmd.Flags().BoolVar(&o.stdout, "stdout", false, "print the file instead of writing it")
	return cmd
}

func runInit(o *initOptions) error {
	ios, ctx, path := o.ios, o.ctx, o.path
	target := filepath.Join(path, config.FileName)
	if !o.stdout {
		// Lstat: a dangling link exists too, and is never written through.
		if fi, err := os.Lstat(target); err == nil && !fi.Mode().IsRegular() {
			return &cmdutil.UsageError{Msg: fmt.Sprintf("%s %s; init writes only a regular file (remove it, or use --stdout)", target, safefile.Describe(fi.Mode()))}
		} else if err == nil && !o.force {
			return &cmdutil.UsageError{Msg: fmt.Sprintf("%s exists; use --force to overwrite it or --stdout to print", target)}
		}
	}
	rp, err := pipeline.Load(ctx, []string{path}, o.render.LoadSettings(ios.ErrOut))
	if err != nil {
		return err
	}
	body, want := initConfig(rp.Inventory, ciValueSets(ctx, path, rp))
	// The file must load, and as what was meant: a template the tool
	// itself rejects would be a poor first experience, and one a name
	// turned into settings a hazard.
	if err := checkRoundTrip(body, want); err != nil {
		return fmt.Errorf("generated configuration does not read back as written (a capreport bug): %w", err)
	}
	if o.stdout {
		_, err := ios.Out.Write(body)
		return err
	}
	if err := atomicfile.WriteFile(target, body, 0o644); err != nil {
		return fmt.Errorf("%w; init writes only a regular file", err)
	}
	fmt.Fprintf(ios.ErrOut, "wrote %s: %d workload(s); fill in the commented values you have measured\n%s", target, len(rp.Inventory.Autoscalers), fillSummary(rp.Inventory))
	return nil
}

// initConfig is the file init writes, and the configuration it must read
// back as (checkRoundTrip): the sources of sets and one entry per
// autoscaler of inv, with no assumption set.
func initConfig(inv *analyze.Inventory, sets []ciValueSet) ([]byte, *config.Config) {
	want := config.Default()
	want.File = config.FileName
	var b strings.Builder
	b.WriteString(`# .capreport.yaml — what capreport cannot read off the manifests.
# Written by "capreport init". Uncomment and fill in what you have measured;
# every value in the report says whether it came from an annotation, this file
# or a built-in default, and a defaulted dead time or pod rate is a finding.
# Annotations (capreport.io/<key> on the autoscaler or its workload) win over
# this file.

# defaults apply to every workload below that does not set its own value.
defaults:
`)
	for _, h := range assumptionHelp {
		fmt.Fprintf(&b, "  # %s: %s  # %s\n", h.key, h.example, h.help)
	}
	b.WriteString(`
# The cluster's HPA controller settings (kube-controller-manager flags).
cluster:
  # syncPeriod: 15s
  # tolerance: 0.1
  # downscaleStabilization: 300s
  # cpuInitializationPeriod: 5m
  # initialReadinessDelay: 30s
  # kubeVersion: 1.34.0

# checks:
#   exclude: [assumption-default]
#   allowIgnores: true
# failOn: error

`)
	writeSources(&b, sets, want)
	writeWorkloads(&b, inv, want)
	return []byte(b.String()), want
}

// writeWorkloads writes the workloads section: one entry per autoscaler,
// each under a comment naming it and its file, and adds each to want.
func writeWorkloads(b *strings.Builder, inv *analyze.Inventory, want *config.Config) {
	if len(inv.Autoscalers) == 0 {
		b.WriteString("# No autoscaler was found; workloads entries match by namespace, kind and name globs.\nworkloads: []\n")
		return
	}
	var entries strings.Builder
	for _, a := range inv.Autoscalers {
		writeWorkload(&entries, a, want)
	}
	b.WriteString("# One entry per autoscaler found; namespace, kind and name are globs.\nworkloads:")
	if len(want.Workloads) == 0 {
		b.WriteString(" []") // the entries were all left out; an empty key would be null
	}
	b.WriteString("\n" + entries.String())
}

// writeWorkload writes one autoscaler's entry, its namespace, kind and
// name as literal globs (config.LiteralGlob): an entry for "api-*" must
// not cover api-web. An autoscaler without a name, or with text YAML
// cannot hold, is named in a comment instead.
func writeWorkload(b *strings.Builder, a analyze.Autoscaler, want *config.Config) {
	where := a.Origin.File
	if a.Origin.Line > 0 {
		where += ":" + strconv.Itoa(a.Origin.Line)
	}
	fmt.Fprintf(b, "  # %s (%s signal) from %s\n", yamlComment(a.ID), yamlComment(string(a.Signal)), yamlComment(where))
	w := config.Workload{Kind: config.LiteralGlob(a.Kind), Name: config.LiteralGlob(a.Name)}
	if a.Namespace != "" {
		// Rendered without a namespace, it is left out: an empty glob matches any.
		w.Namespace = config.LiteralGlob(a.Namespace)
	}
	entry, err := workloadEntry(w)
	if a.Name == "" {
		err = errors.New("it has no name, and an empty glob would match every workload")
	}
	if err != nil {
		fmt.Fprintf(b, "  # not written: %s\n", yamlComment(err.Error()))
		return
	}
	b.WriteString(entry)
	want.Workloads = append(want.Workloads, w)
	if relevant[a.Signal] == nil {
		fmt.Fprintf(b, "    # not priced (a %s signal); signal: backlog or saturating prices it as one\n", yamlComment(string(a.Signal)))
	}
	missing := missingAssumptions(a)
	for _, h := range assumptionHelp {
		if missing[h.key] {
			fmt.Fprintf(b, "    # %s: %s  # missing (%s): %s\n", h.key, h.example, howToFill(h.key), h.help)
		}
	}
}

// workloadEntry is a workloads list item naming w, each value a YAML
// scalar on its own line.
func workloadEntry(w config.Workload) (string, error) {
	var b strings.Builder
	lead := "  - "
	for _, kv := range [][2]string{{"namespace", w.Namespace}, {"kind", w.Kind}, {"name", w.Name}} {
		if kv[0] == "namespace" && kv[1] == "" {
			continue
		}
		v, err := yamlScalar(kv[1])
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "%s%s: %s\n", lead, kv[0], v)
		lead = "    "
	}
	return b.String(), nil
}
