// Package rules turns what analyze found into the ledger: for each
// autoscaler its Size or Time bill (simulated with the ported controller and
// checked against the laws), the checks it fails, and its verdict, collected
// in the Report that every output format renders.
package rules

import (
	"context"
	"runtime"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/config"
	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/render"
)

// Build prices every autoscaler of inv and assembles the report. rendered may
// be nil (no sources to list). The context cancels pricing between
// workloads.
func Build(ctx context.Context, root string, rendered *render.Result, inv *analyze.Inventory, cfg *config.Config, opts Options) (*contract.Report, error) {
	if cfg == nil {
		cfg = config.Default()
	}
	r := &contract.Report{
		SchemaVersion: contract.SchemaVersion,
		Tool:          opts.Tool,
		Root:          root,
		Workloads:     make([]contract.Workload, len(inv.Autoscalers)),
		Sources:       []contract.Source{},
		Findings:      []contract.Finding{},
	}
	if opts.Now != nil {
		r.GeneratedAt = opts.Now().UTC().Format(time.RFC3339)
	}
	if err := priceAll(ctx, inv.Autoscalers, r.Workloads, cfg, opts); err != nil {
		return nil, err
	}
	if rendered != nil {
		for _, s := range rendered.Sources {
			r.Sources = append(r.Sources, contract.Source{
				Path: s.Path, Type: string(s.Type), ValueSet: s.ValueSet,
				Status: string(s.Status), Reason: s.Reason, Objects: s.Objects,
				Partial: s.Partial, Chain: s.Chain, Repository: s.Repository,
			})
		}
		r.Findings = append(r.Findings, rendered.Findings...)
	}
	r.Findings = append(r.Findings, inv.Findings...)
	r.Findings = append(r.Findings, unknownCheckIDs(cfg)...)
	r.Findings = filterChecks(r.Findings, cfg.Checks)
	contract.SortByID(r.Workloads)
	r.Summary = contract.Summarize(r)
	return r, nil
}

// priceAll prices autoscalers into out (same index), at most opts.Workers
// (default GOMAXPROCS) at once; a cancelled context stops the feeding.
func priceAll(ctx context.Context, in []analyze.Autoscaler, out []contract.Workload, cfg *config.Config, opts Options) error {
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var g errgroup.Group
	g.SetLimit(workers)
	var mu sync.Mutex
	done := 0
	bills := newBillCache(opts.CacheDir, cfg, opts)
	for i := range in {
		if err := ctx.Err(); err != nil {
			_ = g.Wait()
			return err
		}
		g.Go(func() error {
			if bills != nil {
				out[i] = bills.price(&in[i], cfg, opts)
			} else {
				out[i] = price(&in[i], cfg, opts)
			}
			if opts.Progress != nil {
				mu.Lock()
				done++
				opts.Progress(done, len(in))
				mu.Unlock()
			}
			return nil
		})
	}
	return g.Wait()
}

// unknownCheckIDs flags the IDs in checks.include and checks.exclude that
// name no check: a typo there silently selects nothing.
func unknownCheckIDs(cfg *config.Config) []contract.Finding {
	var out []contract.Finding
	for _, list := range []struct {
		key string
		ids []string
	}{{"include", cfg.Checks.Include}, {"exclude", cfg.Checks.Exclude}} {
		for _, id := range list.ids {
			if _, ok := check.Lookup(id); !ok {
				f := check.Raise(check.UnknownCheck, "checks.%s names %q, which is not a check", list.key, id)
				f.Location = check.At(cfg.File, cfg.Checks.Lines[id])
				out = append(out, f)
			}
		}
	}
	return out
}
