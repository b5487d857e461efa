package initcmd

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/analyze"
	"github.com/capreport/capreport/config"
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
		for _, f := range ciValuesFiles(filepath.Join(root, filepath.FromSlash(s.Path), "ci")) {
			name := strings.TrimSuffix(filepath.Base(f), "-values.yaml")
			if !config.ValidValueSetName(name) {
				continue // a name the configuration refuses (it names renders path@name)
			}
			rel := filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator)))
			if n := autoscalersWith(ctx, rp, s.Path, name, rel); n > 0 {
				out = append(out, ciValueSet{chart: relToConfig(path, root, s.Path), name: name, file: relToConfig(path, root, rel), autoscalers: n})
			}
		}
	}
	return out
}

// ciValuesFiles are the ci/*-values.yaml files of a chart, sorted. The
// directory is listed, not globbed: a chart directory named "[" would be
// a pattern.
func ciValuesFiles(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), "-values.yaml") {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
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

// writeSources writes the sources section for the ci value sets found,
// and adds each source to want. A chart or file whose name YAML cannot
// hold is left out with a comment.
func writeSources(b *strings.Builder, sets []ciValueSet, want *config.Config) {
	if len(sets) == 0 {
		return
	}
	var entries strings.Builder
	for len(sets) > 0 {
		n := 1
		for n < len(sets) && sets[n].chart == sets[0].chart {
			n++
		}
		writeSource(&entries, sets[:n], want)
		sets = sets[n:]
	}
	b.WriteString("# Charts that price nothing with their defaults, rendered with the ci/ value sets\n# that turn an autoscaler on (each replaces the defaults render of its chart).\nsources:")
	if len(want.Sources) == 0 {
		b.WriteString(" []") // the sources were all left out; an empty key would be null
	}
	b.WriteString("\n" + entries.String() + "\n")
}

// writeSource writes one chart's entry, sets being its value sets.
func writeSource(b *strings.Builder, sets []ciValueSet, want *config.Config) {
	src := config.Source{Path: sets[0].chart}
	var lines []string
	for _, s := range sets {
		if !config.ValidValueSetName(s.name) || !configPath(s.file) {
			lines = append(lines, "      # not written: value set "+yamlComment(s.name)+" of "+yamlComment(s.file))
			continue
		}
		flow, err := yamlOneLine(&yaml.Node{Kind: yaml.MappingNode, Style: yaml.FlowStyle, Content: []*yaml.Node{
			yamlStr("name"), yamlStr(s.name), yamlStr("values"),
			{Kind: yaml.SequenceNode, Style: yaml.FlowStyle, Content: []*yaml.Node{yamlStr(s.file)}},
		}})
		if err != nil {
			lines = append(lines, "      # not written: "+yamlComment(err.Error()))
			continue
		}
		lines = append(lines, fmt.Sprintf("      - %s  # %d autoscaler(s)", flow, s.autoscalers))
		src.ValueSets = append(src.ValueSets, config.ValueSet{Name: s.name, Values: []string{s.file}})
	}
	path, err := yamlScalar(src.Path)
	if err != nil || !configPath(src.Path) || len(src.ValueSets) == 0 {
		fmt.Fprintf(b, "  # not written: chart %s\n", yamlComment(src.Path))
		return
	}
	fmt.Fprintf(b, "  - path: %s\n    valueSets:\n%s\n", path, strings.Join(lines, "\n"))
	want.Sources = append(want.Sources, src)
}

// configPath reports whether p reads back from .capreport.yaml as itself:
// relative, inside the root, already clean (the configuration cleans it).
func configPath(p string) bool {
	return p != "" && path.Clean(p) == p && !path.IsAbs(p) && p != ".." && !strings.HasPrefix(p, "../")
}

func yamlStr(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

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
