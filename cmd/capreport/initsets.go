package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/render"
)

// measurable are the assumptions `capreport calibrate` reads off a
// cluster's Prometheus; the others are the team's to state (a latency
// target, a design step, the model's knobs).
var measurable = map[string]bool{"deadTime": true, "podRate": true, "demand": true, "overload": true}

// howToFill says how a missing assumption gets its value.
func howToFill(key string) string {
	if measurable[key] {
		return "capreport calibrate measures it"
	}
	return "state it: the cluster cannot tell"
}

// ciValueSet is a chart's ci/*-values.yaml that prices something the
// chart's defaults do not.
type ciValueSet struct {
	chart, name, file string // relative to the config's directory
	autoscalers       int
}

// ciValueSets renders, for each chart that yields no autoscaler with its
// defaults, every ci/*-values.yaml beside it (the value sets chart
// monorepos test with) and keeps those that yield one.
func ciValueSets(ctx context.Context, path string, rp *pipeline.Repo) []ciValueSet {
	have := map[string]bool{}
	for _, a := range rp.Inventory.Autoscalers {
		have[strings.SplitN(a.Origin.Source, "@", 2)[0]] = true
	}
	root, err := filepath.Abs(rp.Root)
	if err != nil {
		return nil
	}
	var out []ciValueSet
	for _, s := range rp.Rendered.Sources {
		if s.Type != render.SourceHelm || have[s.Path] || s.ValueSet != "" || len(s.Chain) > 0 {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(s.Path), "ci", "*-values.yaml"))
		sort.Strings(files)
		for _, f := range files {
			name := strings.TrimSuffix(filepath.Base(f), "-values.yaml")
			rel := filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator)))
			if n := autoscalersWith(ctx, rp, s.Path, name, rel); n > 0 {
				out = append(out, ciValueSet{chart: relToConfig(path, root, s.Path), name: name, file: relToConfig(path, root, rel), autoscalers: n})
			}
		}
	}
	return out
}

// autoscalersWith counts the autoscalers a chart renders with one values
// file.
func autoscalersWith(ctx context.Context, rp *pipeline.Repo, chart, name, values string) int {
	opts := render.DefaultOptions()
	opts.FS = filesys.MakeFsOnDisk()
	opts.Root = rp.Root
	opts.Isolation = pipeline.WorkerIsolation(render.DefaultSourceMemory)
	opts.Sources = []render.SourceSpec{{Path: chart, Type: render.SourceHelm, Name: name, Helm: render.HelmValues{ValuesFiles: []string{values}}}}
	res, err := render.Render(ctx, filepath.Join(rp.Root, filepath.FromSlash(chart)), opts)
	if err != nil {
		return 0
	}
	return len(analyze.Extract(res.Objects, rp.Config).Autoscalers)
}

// relToConfig makes a root-relative path relative to the config file's
// directory (PATH), as .capreport.yaml paths are.
func relToConfig(path, root, rel string) string {
	dir, err := filepath.Abs(path)
	if err != nil {
		return rel
	}
	p, err := filepath.Rel(dir, filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil || strings.HasPrefix(p, "..") {
		return rel
	}
	return filepath.ToSlash(p)
}

// writeSources writes the sources section for the ci value sets found.
func writeSources(b *strings.Builder, sets []ciValueSet) {
	if len(sets) == 0 {
		return
	}
	b.WriteString("# Charts that price nothing with their defaults, rendered with the ci/ value sets\n# that turn an autoscaler on (each replaces the defaults render of its chart).\nsources:\n")
	last := ""
	for _, s := range sets {
		if s.chart != last {
			fmt.Fprintf(b, "  - path: %s\n    valueSets:\n", yamlString(s.chart))
			last = s.chart
		}
		fmt.Fprintf(b, "      - {name: %s, values: [%s]}  # %d autoscaler(s)\n", yamlString(s.name), yamlString(s.file), s.autoscalers)
	}
	b.WriteString("\n")
}

// fillSummary is init's account on stderr: which defaults calibration can
// measure and which the team must state, with the workloads of each.
func fillSummary(inv *analyze.Inventory) string {
	counts := map[string]int{}
	for _, a := range inv.Autoscalers {
		for key := range missingAssumptions(a) {
			counts[key]++
		}
	}
	var measure, state []string
	for _, h := range assumptionHelp {
		n := counts[h.key]
		if n == 0 {
			continue
		}
		item := fmt.Sprintf("%s (%d)", h.key, n)
		if measurable[h.key] {
			measure = append(measure, item)
		} else {
			state = append(state, item)
		}
	}
	var b strings.Builder
	if len(measure) > 0 {
		fmt.Fprintf(&b, "capreport calibrate --prometheus URL can measure: %s\n", strings.Join(measure, ", "))
	}
	if len(state) > 0 {
		fmt.Fprintf(&b, "the team must state: %s\n", strings.Join(state, ", "))
	}
	return b.String()
}
