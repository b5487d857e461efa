// Package list is `capreport list`: the inventory of a repository, every
// autoscaler found with its target, metrics, behavior and assumptions, and
// every source rendered, as text or JSON (contract.Inventory), unpriced.
package list

import (
	"context"
	"encoding/json"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/render"
)

// listOptions are the flags of `capreport list`.
type listOptions struct {
	ios    *cmdutil.IOStreams
	ctx    context.Context // the command's, set before runF
	render cmdutil.RenderFlags
	format string
	path   string
}

// NewCmdList prints what capreport would price, without pricing it: every
// autoscaler with its target, signal, bounds, metrics and assumptions (and
// where each came from), then every source and how it rendered. runF, when
// set, receives the parsed options instead of running (flag-parsing tests).
func NewCmdList(f *cmdutil.Factory, runF func(*listOptions) error) *cobra.Command {
	o := &listOptions{ios: f.IOStreams}
	cmd := &cobra.Command{
		Use: "list [PATH]",
		Example: "  capreport list ./deploy\n" +
			"  capreport list . -o json | jq '.autoscalers[].id'",
		Short: "List every autoscaler, its target, signal and assumptions, and every rendered source",
		Long: "list renders PATH (default .) like the main command and prints each autoscaler it finds:\n" +
			"kind, namespace, name, target, signal, replica bounds, metrics, and every assumption with\n" +
			"where it came from (annotation, .capreport.yaml, cluster settings or default), then each\n" +
			"source with its status. Nothing is simulated.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx, o.path = cmd.Context(), cmdutil.ArgPath(args)
			o.render.Stdin = o.ios.In // PATH "-", as the root command reads it
			if err := cmdutil.CheckFormat(o.format, "text", "json"); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return runList(o)
		},
	}
	o.render.Register(cmd)
	cmd.Flags().StringVarP(&o.format, "format", "o", "text", "output format: text or json")
	return cmd
}

func runList(o *listOptions) error {
	ctx, ios := o.ctx, o.ios
	if ctx == nil {
		ctx = context.Background()
	}
	rp, err := pipeline.Load(ctx, []string{o.path}, o.render.LoadSettings(ios.ErrOut))
	if err != nil {
		return err
	}
	out := newListOutput(rp.Rendered, rp.Inventory)
	if o.format == "json" {
		enc := json.NewEncoder(ios.Out)
		enc.SetIndent("", "  ")
		err = enc.Encode(out)
	} else {
		err = out.writeText(ios.Out)
	}
	if err != nil {
		return err
	}
	if n := failedSources(rp.Rendered); n > 0 {
		return &cmdutil.SourcesFailedError{Failed: n}
	}
	return nil
}

// failedSources counts the sources that failed to render.
func failedSources(res *render.Result) int {
	n := 0
	for _, s := range res.Sources {
		if s.Status == render.StatusFailed {
			n++
		}
	}
	return n
}
