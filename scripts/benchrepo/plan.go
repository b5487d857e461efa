package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/capreport/capreport/contract"
	"github.com/capreport/capreport/pipeline"
	"github.com/capreport/capreport/render"
)

// capFlags are the capreport flags that decide what a CLI render gets.
type capFlags struct {
	values, set, apiVersions []string
	releaseName, namespace   string
	kubeVersion, config      string
}

// parseCapFlags reads the render flags out of capreport's arguments; the
// others are capreport's business and are passed on untouched.
func parseCapFlags(args []string) (capFlags, error) {
	var f capFlags
	fs := pflag.NewFlagSet("capreport", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.StringArrayVarP(&f.values, "values", "f", nil, "")
	fs.StringArrayVar(&f.set, "set", nil, "")
	fs.StringArrayVarP(&f.apiVersions, "api-versions", "a", nil, "")
	fs.StringVar(&f.releaseName, "release-name", "", "")
	fs.StringVarP(&f.namespace, "namespace", "n", "", "")
	fs.StringVar(&f.kubeVersion, "kube-version", "", "")
	fs.StringVar(&f.config, "config", "", "")
	fs.String("root", "", "")
	fs.StringP("format", "o", "", "")
	err := fs.Parse(args)
	return f, err
}

// job is one CLI process.
type job struct {
	label string // the source, as the report names it
	argv  []string
}

// plan is what the CLI side runs, and what it leaves out and why.
type plan struct {
	jobs    []job
	omitted map[string]int // reason -> sources
	types   map[string]int // source type -> sources in the report
}

// planner turns a report's sources into CLI processes.
type planner struct {
	root, scope string
	flags       capFlags
	explicit    map[string]render.HelmValues // "path@valueSet" -> the config's values
	kubeVersion string
	apiVersions []string
	helm, kust  string
}

// newPlanner reads the configuration capreport read (--config, else
// PATH's, else the root's .capreport.yaml) and resolves the Kubernetes and
// API versions as capreport does.
func newPlanner(rep *contract.Report, path string, f capFlags, s settings) (*planner, error) {
	root := rep.RepoRoot
	if root == "" {
		root = rep.Root
	}
	p := &planner{root: abs(root), scope: abs(path), flags: f, explicit: map[string]render.HelmValues{},
		helm: s.helm, kust: s.kustomize}
	if st, err := os.Stat(p.scope); err == nil && !st.IsDir() {
		p.scope = filepath.Dir(p.scope)
	}
	cfg, cfgPath, err := pipeline.LoadConfig(path, root, f.config)
	if err != nil {
		return nil, err
	}
	opts := cfg.RenderOptions(render.DefaultOptions())
	base := configBase(cfgPath, p.root)
	for _, sp := range opts.Sources {
		key := filepath.ToSlash(filepath.Join(base, filepath.FromSlash(sp.Path)))
		p.explicit[key+"@"+sp.Name] = sp.Helm
	}
	p.kubeVersion = opts.KubeVersion
	if f.kubeVersion != "" {
		p.kubeVersion = f.kubeVersion
	}
	p.apiVersions = append(opts.APIVersions, f.apiVersions...)
	return p, nil
}

// configBase is the configuration file's directory relative to the root,
// which its source paths are relative to ("" outside the root).
func configBase(cfgPath, root string) string {
	if cfgPath == "" {
		return ""
	}
	rel, err := filepath.Rel(root, abs(filepath.Dir(cfgPath)))
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return ""
	}
	return rel
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(a); err == nil {
		return r
	}
	return a
}

// plan derives one CLI process per Helm and Kustomize source of the report.
func (p *planner) plan(sources []contract.Source) plan {
	out := plan{omitted: map[string]int{}, types: map[string]int{}}
	for _, s := range sources {
		out.types[s.Type]++
		j, why := p.job(s)
		if why != "" {
			out.omitted[why]++
			continue
		}
		out.jobs = append(out.jobs, j)
	}
	return out
}

// job is the CLI process of one source, or why it has none.
func (p *planner) job(s contract.Source) (job, string) {
	label := s.Path
	if s.ValueSet != "" {
		label += "@" + s.ValueSet
	}
	switch {
	case s.Status == "skipped":
		return job{}, "skipped by capreport (library charts)"
	case s.Status == "delivered":
		return job{}, "rendered by the GitOps object that delivers it"
	case s.Type == "plain":
		return job{}, "plain YAML (no CLI renders it)"
	case s.Type == "helm" && len(s.Chain) > 0:
		return job{}, "Helm chart delivered by a GitOps object (its values are the object's)"
	case s.Type == "helm":
		return job{label: label, argv: p.helmArgv(s)}, ""
	case s.Type == "kustomize":
		dir := filepath.Join(p.root, filepath.FromSlash(s.Path))
		if len(s.Chain) > 0 && !hasKustomization(dir) {
			return job{}, "Flux-generated kustomization (no file for kustomize build)"
		}
		return job{label: label, argv: []string{p.kust, "build", dir}}, ""
	}
	return job{}, fmt.Sprintf("type %q", s.Type)
}

func hasKustomization(dir string) bool {
	for _, n := range []string{"kustomization.yaml", "kustomization.yml", "Kustomization"} {
		if _, err := os.Stat(filepath.Join(dir, n)); err == nil {
			return true
		}
	}
	return false
}

// helmArgv is `helm template` of one chart source with the values capreport
// rendered it with: the configuration's value set when the report's
// source is one of its sources, else the command line's -f and --set; the
// release name and namespace falling back as render's do.
func (p *planner) helmArgv(s contract.Source) []string {
	chart := filepath.Join(p.root, filepath.FromSlash(s.Path))
	hv, explicit := p.explicit[s.Path+"@"+s.ValueSet]
	if !explicit {
		hv = render.HelmValues{ValuesFiles: p.flags.values, Set: p.flags.set}
	}
	release := firstOf(hv.ReleaseName, p.flags.releaseName, render.DefaultReleaseName)
	ns := firstOf(hv.Namespace, p.flags.namespace, render.DefaultNamespace)
	argv := []string{p.helm, "template", release, chart, "--namespace", ns, "--kube-version", p.kubeVersion, "--skip-tests"}
	for _, a := range p.apiVersions {
		argv = append(argv, "--api-versions", a)
	}
	for _, v := range hv.ValuesFiles {
		argv = append(argv, "--values", p.valuesFile(chart, v, !explicit))
	}
	for _, kv := range hv.Set {
		argv = append(argv, "--set", kv)
	}
	return argv
}

// valuesFile finds a values file where render looks for it: a command-line
// one (trusted) as given when it exists, then in the chart directory, the
// scanned path and the root.
func (p *planner) valuesFile(chart, v string, trusted bool) string {
	if filepath.IsAbs(v) {
		return v
	}
	cands := []string{filepath.Join(chart, v), filepath.Join(p.scope, v), filepath.Join(p.root, v)}
	if trusted {
		cands = append([]string{v}, cands...)
	}
	for _, c := range cands {
		if _, err := os.Stat(c); err == nil {
			return abs(c)
		}
	}
	return v
}

func firstOf(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
