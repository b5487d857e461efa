// Package gitops is render's GitOps engine: it follows the Flux and Argo
// CD objects of a run's renders into what they deliver (Follow), as each
// controller would, and chains each delivered object to the objects that
// delivered it. It renders nothing itself: each delivered source is a
// source.Spec it hands back to the orchestrator (Sources), and it reads
// the repository only as a tree, to find what to render.
package gitops

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/internal/appset"
	"github.com/capreport/capreport/render/internal/fluxgen"
	"github.com/capreport/capreport/render/internal/kustscan"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/repourl"
	"github.com/capreport/capreport/render/internal/source"
	"github.com/capreport/capreport/render/internal/valuesfrom"
)

// Bounds of GitOps expansion: a repository that delivers more than this is
// cut, with a finding, rather than rendered without end.
const (
	maxGitOpsDeliveries = 2000 // GitOps objects expanded in one run
	// MaxDepth is the most links one delivery chain may have (render's
	// tests build a chain one deeper).
	MaxDepth = 16
)

// gitopsKind names the GitOps object kinds capreport follows.
type gitopsKind int

const (
	notGitOps gitopsKind = iota
	fluxKustomization
	fluxHelmRelease
	helmOperatorRelease // Flux v1's Helm Operator (helm.fluxcd.io/v1)
	argoApplication
	argoApplicationSet
	fluxResourceSet // the Flux Operator's (fluxcd.controlplane.io)
)

// kindOfGitOps classifies an object by group and kind.
func kindOfGitOps(o *object.Object) gitopsKind {
	group := object.Group(o.APIVersion)
	switch {
	case group == "kustomize.toolkit.fluxcd.io" && o.Kind == "Kustomization":
		return fluxKustomization
	case group == "helm.toolkit.fluxcd.io" && o.Kind == "HelmRelease":
		return fluxHelmRelease
	case group == "helm.fluxcd.io" && o.Kind == "HelmRelease":
		return helmOperatorRelease
	case group == "argoproj.io" && o.Kind == "Application":
		return argoApplication
	case group == "argoproj.io" && o.Kind == "ApplicationSet":
		return argoApplicationSet
	case group == "fluxcd.controlplane.io" && o.Kind == "ResourceSet":
		return fluxResourceSet
	}
	return notGitOps
}

// Input reports whether following GitOps objects may read o: the
// Flux and Argo CD objects themselves, Flux's sources, and the ConfigMaps
// and Secrets their values and substitutions come from.
func Input(o *object.Object) bool {
	switch object.Group(o.APIVersion) {
	case "kustomize.toolkit.fluxcd.io", "helm.toolkit.fluxcd.io", "source.toolkit.fluxcd.io", "helm.fluxcd.io", "argoproj.io", "fluxcd.controlplane.io":
		return true
	case "":
		return o.Kind == "ConfigMap" || o.Kind == "Secret"
	}
	return false
}

// linkOf is the chain link of a GitOps object.
func linkOf(o *object.Object) object.Link {
	return object.Link{File: o.Origin.File, Line: o.Origin.Line, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}
}

// gitopsKey identifies one GitOps object at one place: the same object
// found again (a self-managing Flux root re-applies its own directory) is
// not expanded twice.
func gitopsKey(o *object.Object) string {
	return fmt.Sprintf("%s\x00%s\x00%s\x00%s\x00%s:%d", o.APIVersion, o.Kind, o.Namespace, o.Name, o.Origin.File, o.Origin.Line)
}

// expansionKey identifies what a GitOps object expands to: its place and its
// content. The same object at the same place can differ (a chart rendered
// on its own with its defaults, and delivered with an Application's
// values), and each must expand as it is.
func expansionKey(o *object.Object) string {
	data, err := json.Marshal(o.Doc) // sorted keys: one text per content
	if err != nil {
		return gitopsKey(o)
	}
	sum := sha256.Sum256(data)
	return gitopsKey(o) + "\x00" + string(sum[:])
}

// expansion is what one GitOps object delivers.
type expansion struct {
	outs []source.Out // renders it made
	// generated are objects it yields without a render (the Applications of
	// an ApplicationSet).
	generated []object.Object
	findings  []check.Finding // about the GitOps object itself
	// lookupMiss: a referenced object (GitRepository, ConfigMap, HelmChart)
	// was not found, so a later pass, with more objects known, may differ.
	lookupMiss bool
}

// covered lists every root-relative path the expansion's renders read.
func (e *expansion) covered() map[string]bool {
	c := map[string]bool{}
	for _, o := range e.outs {
		for _, p := range o.Covered {
			c[p] = true
		}
	}
	return c
}

// engine follows the GitOps objects of one Render.
type engine struct {
	src Sources
	ctx context.Context
	// repo is the repository tree, which expansions read (kustomization
	// files, value files, directories) without rendering.
	repo        *repofs.Repo
	sourceMaps  []source.Map
	parallelism int
	fetch       bool // the run may download charts (Config.Fetch)
	// delivered holds the run's delivered builds (prefetch.go).
	delivered *renderMemo
	// known are the objects GitOps references resolve against: every
	// standalone object, then every delivered one; byKindNS indexes them
	// by kind and namespace (later ones last).
	known    []object.Object
	byKindNS map[string][]int
	repoURLs repourl.Matcher
	findings []check.Finding
	memo     map[string]expansionMemo
	// reads counts, while an expansion runs, the known objects of each
	// kind and namespace it looked among (see expansionMemo).
	reads map[string]int
	tree  *repoTree
	// withheld are the autoscalers failed builds keep from the cluster;
	// failedBy maps each failed object's ref to the object.
	withheld []object.WithheldObject
	failedBy map[string]*object.Object
	// failedInRun are the GitOps objects whose delivered copy failed to
	// build as it was followed.
	failedInRun map[string]bool
	// appsetWork is the work all the run's ApplicationSets share.
	appsetWork *appset.RunWork
	// fluxScans is the Flux generator's directory work, made once per run.
	fluxScans *fluxgen.Scans
	// valuesFrom is the run's parsed valuesFrom documents and budget.
	valuesFrom *valuesfrom.Work
}

// pending is a GitOps object waiting to be expanded with its chain.
type pending struct {
	obj   object.Object
	chain []object.Link
}

// Sources is what the engine asks of the orchestrator that runs it: the
// renders of the sources GitOps objects deliver. The engine reads the
// repository itself only as a tree (Config.Repo), to find what to render.
type Sources interface {
	// Render renders one source under the run's limits, through its
	// render cache when it has one; the result's Spec is spec.
	Render(ctx context.Context, spec source.Spec) source.Out
	// Failed is the render of spec that err stopped, with a finding of
	// check id.
	Failed(spec source.Spec, id string, err error) source.Out
	// ScanKustomize reads the kustomization spec names at dir, the
	// absolute directory, without building it.
	ScanKustomize(spec source.Spec, dir string) (*kustscan.Scan, []check.Finding, error)
}

// Config is what a run's GitOps objects are followed with.
type Config struct {
	// Repo is the repository, read as a tree: the renders go through
	// Sources.
	Repo *repofs.Repo
	// RepoURLs name this repository (render.Options.RepoURLs); SourceMaps
	// point other repositories' sources inside it (--source).
	RepoURLs   []string
	SourceMaps []source.Map
	// Parallelism is how many builds prefetch makes at once (0:
	// GOMAXPROCS).
	Parallelism int
	// Fetch: the run may download charts (render.Options.Fetch).
	Fetch bool
}

// Followed is what following a run's GitOps objects made of its renders.
type Followed struct {
	// Outs are the renders to report: the standalone ones, some now
	// delivered or withheld, then the ones the GitOps objects delivered.
	Outs []source.Out
	// Findings are about the GitOps objects, the withheld autoscalers and
	// the objects delivered twice, in that order.
	Findings []check.Finding
	// Withheld are the autoscalers beneath a GitOps object whose build
	// failed.
	Withheld []object.WithheldObject
}

// Follow expands the Flux and Argo CD objects of the standalone renders
// outs. Sources that a GitOps object delivers lose their standalone
// render (status delivered): their objects come from the delivery, with
// its settings and chain. Sources beneath a GitOps object whose build
// fails are withheld: the controllers apply nothing of a failed build.
func Follow(ctx context.Context, src Sources, cfg Config, outs []source.Out) Followed {
	if !hasGitOps(outs) {
		return Followed{Outs: outs}
	}
	g := &engine{src: src, ctx: ctx, repo: cfg.Repo, sourceMaps: cfg.SourceMaps, parallelism: cfg.Parallelism, fetch: cfg.Fetch,
		delivered: &renderMemo{outs: map[string]source.Out{}},
		repoURLs:  repourl.NewMatcher(cfg.RepoURLs), memo: map[string]expansionMemo{}, byKindNS: map[string][]int{},
		appsetWork: appset.NewRunWork(appset.RunWorkBudget), fluxScans: fluxgen.NewScans(),
		valuesFrom: valuesfrom.NewWork(),
		failedBy:   map[string]*object.Object{}, failedInRun: map[string]bool{}}
	for _, o := range outs {
		g.know(o.Objects)
	}
	g.prefetchStandalone(outs)
	g.configureFromRoots(outs)
	withheld, suppressed := g.plan(outs)
	var queue []pending
	stash := map[int]source.Out{}
	for i := range outs {
		if by, ok := withheld[i]; ok {
			g.withhold(&outs[i], by)
			continue
		}
		if suppressed[i] != "" {
			stash[i] = outs[i]
			outs[i].Result.Status = object.StatusDelivered
			outs[i].Result.Reason = "rendered through " + suppressed[i]
			outs[i].Result.Objects = 0
			outs[i].Result.Findings = nil
			outs[i].Objects = nil
			continue
		}
		for _, o := range outs[i].Objects {
			if kindOfGitOps(&o) != notGitOps {
				queue = append(queue, pending{obj: o, chain: []object.Link{linkOf(&o)}})
			}
		}
	}
	delivered := g.run(queue)
	g.withholdFailedDeliveries(outs, suppressed, stash)
	outs = append(outs, delivered...)
	findings := append(g.findings, g.withheldFindings()...)
	outs, twice := dedupeDeliveries(outs)
	return Followed{Outs: outs, Findings: append(findings, twice...), Withheld: g.withheld}
}

// Is reports whether o is a GitOps object the engine follows.
func Is(o *object.Object) bool { return kindOfGitOps(o) != notGitOps }

// render is Sources.Render of a delivered source, made once per run
// (renderMemo): the builds prefetch made and every one an expansion made
// before are taken from the memo.
func (g *engine) render(spec source.Spec) source.Out {
	if out, ok := g.delivered.take(spec); ok {
		return out
	}
	out := g.src.Render(g.ctx, spec)
	g.delivered.keep(spec, out)
	return out
}

func hasGitOps(outs []source.Out) bool {
	for i := range outs {
		for j := range outs[i].Objects {
			if kindOfGitOps(&outs[i].Objects[j]) != notGitOps {
				return true
			}
		}
	}
	return false
}

// know adds objects that references may resolve against.
func (g *engine) know(objs []object.Object) {
	for _, o := range objs {
		k := kindNSKey(o.Kind, o.Namespace)
		g.byKindNS[k] = append(g.byKindNS[k], len(g.known))
		g.known = append(g.known, o)
	}
}

func kindNSKey(kind, ns string) string {
	if ns == "" {
		ns = object.DefaultNamespace
	}
	return kind + "\x00" + ns
}

// ofKind returns the known objects of a kind in a namespace, latest last.
func (g *engine) ofKind(kind, ns string) []*object.Object {
	idx := g.byKindNS[kindNSKey(kind, ns)]
	if g.reads != nil {
		g.reads[kindNSKey(kind, ns)] = len(idx)
	}
	out := make([]*object.Object, len(idx))
	for i, j := range idx {
		out[i] = &g.known[j]
	}
	return out
}

// run expands the queue breadth first and returns every render made.
func (g *engine) run(queue []pending) []source.Out {
	var outs []source.Out
	seen := map[string]bool{}
	expanded := 0
	prefetched := 0 // the queue's items up to here were offered to prefetch
	for len(queue) > 0 && g.ctx.Err() == nil {
		if prefetched <= 0 {
			g.prefetch(queue)
			prefetched = len(queue)
		}
		prefetched--
		p := queue[0]
		queue = queue[1:]
		key := gitopsKey(&p.obj)
		if seen[key] {
			g.noteCycle(p)
			continue
		}
		seen[key] = true
		if expanded >= maxGitOpsDeliveries {
			g.findings = append(g.findings, object.Finding(&p.obj, check.GitOpsLimit, check.SeverityError,
				fmt.Sprintf("more than %d GitOps objects to follow; %s and the rest are not followed", maxGitOpsDeliveries, object.Ref(&p.obj))))
			break
		}
		if len(p.chain) > MaxDepth {
			g.findings = append(g.findings, object.Finding(&p.obj, check.GitOpsLimit, check.SeverityError,
				fmt.Sprintf("delivery chain deeper than %d GitOps objects; %s is not followed", MaxDepth, object.Ref(&p.obj))))
			continue
		}
		expanded++
		e := g.expand(&p.obj)
		g.noteFindings(&p.obj, e)
		for _, gen := range e.generated {
			queue = append(queue, pending{obj: gen, chain: appendLink(p.chain, linkOf(&gen))})
		}
		failed := e.failure() != ""
		if failed {
			g.failedBy[object.Ref(&p.obj)] = &p.obj
			g.failedInRun[object.Ref(&p.obj)] = true
		}
		for _, o := range e.outs {
			chain := p.chain
			if o.Via != nil {
				chain = appendLink(chain, *o.Via)
			}
			o = stampChain(o, chain)
			nameDelivery(&o, p.chain[len(p.chain)-1])
			if failed && o.Result.Status != object.StatusFailed {
				// Another source of the same Application rendered, but
				// Argo CD syncs none of a failed manifest generation.
				g.withhold(&o, object.Ref(&p.obj))
			}
			g.know(o.Objects)
			for _, obj := range o.Objects {
				if kindOfGitOps(&obj) != notGitOps {
					queue = append(queue, pending{obj: obj, chain: appendLink(chain, linkOf(&obj))})
				}
			}
			outs = append(outs, o)
		}
	}
	return outs
}

// noteFindings adds the findings of o's expansion as o's. A memoized
// expansion may be another copy's, made at the same place with the same
// content (a standalone render's, which the plan read): its findings are
// this delivery's.
func (g *engine) noteFindings(o *object.Object, e *expansion) {
	for _, f := range e.findings {
		f.Source = o.Origin.Source
		g.findings = append(g.findings, f)
	}
}

// noteCycle reports a GitOps object that its own chain delivers again
// through another object (an app-of-apps cycle). A Flux Kustomization
// that applies the directory it stands in (the bootstrap flux-system) is
// how Flux manages itself, and is not reported.
func (g *engine) noteCycle(p pending) {
	n := len(p.chain)
	if n < 2 {
		return
	}
	self := p.chain[n-1]
	for i, l := range p.chain[:n-1] {
		if l != self {
			continue
		}
		if i == n-2 {
			return // delivers itself: self-management
		}
		names := make([]string, 0, n-i)
		for _, c := range p.chain[i:] {
			names = append(names, c.Kind+" "+c.Namespace+"/"+c.Name)
		}
		g.findings = append(g.findings, object.Finding(&p.obj, check.GitOpsCycle, check.SeverityWarning,
			fmt.Sprintf("delivery cycle: %s; followed once", strings.Join(names, " → "))))
		return
	}
}

func appendLink(chain []object.Link, l object.Link) []object.Link {
	out := make([]object.Link, len(chain), len(chain)+1)
	copy(out, chain)
	return append(out, l)
}

// nameDelivery makes every finding of a delivered render name the GitOps
// object that delivered it, with its file and line, and points a finding
// of no place (a failed render) at that object.
func nameDelivery(o *source.Out, by object.Link) {
	name := fmt.Sprintf("%s:%d %s %s", by.File, by.Line, by.Kind, object.NSName(by.Namespace, by.Name))
	for i := range o.Result.Findings {
		f := &o.Result.Findings[i]
		if f.Location == nil {
			f.Location = check.At(by.File, by.Line)
		}
		if !strings.Contains(f.Message, name) {
			f.Message += " (delivered by " + name + ")"
		}
	}
}

// stampChain gives every object and the source result of a delivery its chain.
func stampChain(o source.Out, chain []object.Link) source.Out {
	o.Result.Chain = chain
	for i := range o.Objects {
		o.Objects[i].Origin.Chain = chain
	}
	return o
}

// expansionMemo is a memoized expansion. One that missed a reference (a
// ConfigMap, a GitRepository) may differ once more objects are known, so
// it stands only while every kind and namespace it looked among holds as
// many known objects as it did then: a Kustomization whose substituteFrom
// names a Secret the repository never holds is built once, not once per
// question asked of it.
type expansionMemo struct {
	e     *expansion
	reads map[string]int
}

// fresh reports whether a memoized expansion still stands.
func (g *engine) fresh(m expansionMemo) bool {
	if !m.e.lookupMiss {
		return true
	}
	for k, n := range m.reads {
		if len(g.byKindNS[k]) != n {
			return false
		}
	}
	return true
}

// expand returns what one GitOps object delivers, memoized (expansionMemo).
func (g *engine) expand(o *object.Object) *expansion {
	key := expansionKey(o)
	if m, ok := g.memo[key]; ok && g.fresh(m) {
		return m.e
	}
	outer := g.reads
	g.reads = map[string]int{}
	e := g.expandKind(o)
	reads := g.reads
	g.reads = outer
	for k, n := range reads {
		if outer != nil {
			outer[k] = n // what an inner expansion read, the outer one did too
		}
	}
	g.memo[key] = expansionMemo{e: e, reads: reads}
	return e
}

// expandKind expands o by its kind.
func (g *engine) expandKind(o *object.Object) *expansion {
	var e *expansion
	switch kindOfGitOps(o) {
	case fluxKustomization:
		e = g.expandFluxKustomization(o)
	case fluxHelmRelease:
		e = g.expandHelmRelease(o)
	case helmOperatorRelease:
		e = g.expandHelmOperatorRelease(o)
	case argoApplication:
		e = g.expandApplication(o)
	case argoApplicationSet:
		e = g.expandApplicationSet(o)
	case fluxResourceSet:
		e = g.expandResourceSet(o)
	default:
		e = &expansion{}
	}
	return e
}

// plan decides what becomes of each standalone source: withheld maps the
// index of a source beneath a failed GitOps object to that object (see
// withheldSources), suppressed the index of a source a working GitOps
// object delivers to the object. A source is delivered when a GitOps object
// of another, not itself delivered or withheld, source reads it. An object
// whose render reads its own file (Flux's self-managing bootstrap
// Kustomization, an Argo CD root app in its own directory) delivers nothing
// it is not already found beside.
func (g *engine) plan(outs []source.Out) (withheld, suppressed map[int]string) {
	live, failed := g.deliveryEdges(outs)
	withheld = withheldSources(live, failed)
	for i := range withheld {
		delete(live, i)
	}
	d := deliveries{edges: live, out: map[int]string{}, visited: map[int]bool{}}
	incoming := map[int]bool{}
	for _, es := range d.edges {
		for _, e := range es {
			incoming[e.to] = true
		}
	}
	for i := range outs {
		if !incoming[i] && withheld[i] == "" {
			d.walk(i)
		}
	}
	for i := range outs { // sources only in cycles: the first stands as a root
		if !d.visited[i] && withheld[i] == "" {
			d.walk(i)
		}
	}
	return withheld, d.out
}

// delivery is an edge of plan's graph: source to is delivered (or, for a
// failed object, withheld) by the GitOps object by.
type delivery struct {
	to int
	by string
}

// deliveryEdges maps each source's index to the other sources its GitOps
// objects read (live), skipping self-managing objects (those whose render
// reads their own file), and to the sources beneath its objects whose build
// failed (failed). An ApplicationSet delivers through each Application it
// generates.
func (g *engine) deliveryEdges(outs []source.Out) (live, failed map[int][]delivery) {
	index := map[string]int{}
	for i, o := range outs {
		index[o.Result.Path] = i
	}
	live, failed = map[int][]delivery{}, map[int][]delivery{}
	nested := g.nestedSources(outs)
	planned := 0
	for i := range outs {
		for j := range outs[i].Objects {
			obj := &outs[i].Objects[j]
			if kindOfGitOps(obj) == notGitOps {
				continue
			}
			// run follows no more than maxGitOpsDeliveries objects, and
			// says so; the plan expands no more either (100,000
			// Applications held every expansion: 1.5 GB).
			if planned++; planned > maxGitOpsDeliveries {
				return live, failed
			}
			cov, ok := g.scannedCoverage(obj, nested[i])
			if !ok {
				cov = g.expandedCoverage(outs, i, obj, failed)
			}
			// In path order: the first walk to reach a source names its
			// delivery, which must not depend on a map's order.
			for _, p := range slices.Sorted(maps.Keys(cov)) {
				if t, ok := index[p]; ok && t != i {
					live[i] = append(live[i], delivery{t, object.Ref(obj)})
				}
			}
		}
	}
	return live, failed
}

// expandedCoverage is what obj, of source i, delivers, by expanding it and
// what it generates; an expansion that fails adds failed edges from i to
// the sources beneath it instead. A self-managing object covers nothing.
func (g *engine) expandedCoverage(outs []source.Out, i int, obj *object.Object, failed map[int][]delivery) map[string]bool {
	cov := map[string]bool{}
	for _, d := range g.deliverers(obj) {
		e := g.expand(d)
		if e.failure() == "" {
			maps.Copy(cov, e.covered())
			continue
		}
		g.failedBy[object.Ref(d)] = d
		for _, t := range sourcesBeneath(outs, e.reach()) {
			if t != i {
				failed[i] = append(failed[i], delivery{t, object.Ref(d)})
			}
		}
	}
	if cov[obj.Origin.File] {
		return nil // self-managing
	}
	return cov
}

// deliverers are the objects whose expansions deliver for o: o itself, or
// the Applications an ApplicationSet generates.
func (g *engine) deliverers(o *object.Object) []*object.Object {
	e := g.expand(o)
	if len(e.generated) == 0 {
		return []*object.Object{o}
	}
	out := make([]*object.Object, 0, len(e.generated)+1)
	out = append(out, o)
	for i := range e.generated {
		out = append(out, &e.generated[i])
	}
	return out
}

// deliveries walks the delivery graph depth first from its roots: the first walk to reach a source
// names the object that delivers it in out.
type deliveries struct {
	edges   map[int][]delivery
	out     map[int]string
	visited map[int]bool
}

func (d *deliveries) walk(i int) {
	if d.visited[i] {
		return
	}
	d.visited[i] = true
	for _, e := range d.edges[i] {
		if !d.visited[e.to] {
			d.out[e.to] = e.by
			d.walk(e.to)
		}
	}
}

// dedupeDeliveries keeps one copy of an object that several chains deliver
// (same group, kind, namespace and name): the cluster holds one. An
// autoscaler delivered twice gets a duplicate-delivery finding naming both
// chains, since the second delivery overwrites the first.
func dedupeDeliveries(outs []source.Out) ([]source.Out, []check.Finding) {
	var findings []check.Finding
	first := map[string]*object.Object{}
	reported := map[string]bool{}
	for i := range outs {
		for _, key := range outs[i].Dropped {
			if _, ok := first[key]; ok {
				outs[i].Result.Objects--
			} else {
				first[key] = nil
			}
		}
		kept := outs[i].Objects[:0]
		for _, o := range outs[i].Objects {
			if len(o.Origin.Chain) == 0 {
				kept = append(kept, o)
				continue
			}
			key := IdentityKey(&o)
			prev, ok := first[key]
			if !ok {
				first[key] = &o
				kept = append(kept, o)
				continue
			}
			if object.IsAutoscaler(&o) && !reported[key+o.Origin.ChainString()] {
				reported[key+o.Origin.ChainString()] = true
				findings = append(findings, check.Finding{Check: check.DuplicateDelivery, Severity: check.SeverityWarning,
					Location: check.At(o.Origin.File, o.Origin.Line), Source: o.Origin.Source,
					Message: fmt.Sprintf("%s %s is delivered more than once; the cluster holds one object, written by whichever applies last: %s; and %s",
						o.Kind, object.NSName(o.Namespace, o.Name), prev.Origin.ChainString(), o.Origin.ChainString())})
			}
		}
		outs[i].Result.Objects -= len(outs[i].Objects) - len(kept)
		outs[i].Objects = kept
	}
	return outs, findings
}

// IdentityKey is what makes two objects one in the cluster: group, kind,
// namespace and name.
func IdentityKey(o *object.Object) string {
	group := object.Group(o.APIVersion)
	ns := o.Namespace
	if ns == "" && !object.ClusterScoped(o.Kind) {
		ns = object.DefaultNamespace
	}
	return group + "\x00" + o.Kind + "\x00" + ns + "\x00" + o.Name
}

// notFollowed is the finding for a GitOps object capreport cannot follow
// offline; the summary counts them.
func notFollowed(o *object.Object, why string) check.Finding {
	return object.Finding(o, check.GitOpsNotFollowed, check.SeverityWarning, "not followed: "+why)
}

// lookup finds a known object by kind and namespaced name ("" namespace
// reads as default, as the API server does for namespaced kinds).
func (g *engine) lookup(apiGroup, kind, namespace, name string) *object.Object {
	objs := g.ofKind(kind, namespace)
	for i := len(objs) - 1; i >= 0; i-- {
		o := objs[i]
		if o.Name == name && (apiGroup == "" || object.Group(o.APIVersion) == apiGroup) {
			return o
		}
	}
	return nil
}
