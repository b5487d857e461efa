// Package gitops is render's GitOps engine: it follows the Flux and Argo
// CD objects of a run's renders into what they deliver (Follow), as each
// controller would, and chains each delivered object to the objects that
// delivered it. It renders nothing itself: each delivered source is a
// source.Spec it hands back to the orchestrator (Sources), and it reads
// the repository only as a tree, to find what to render.
package gitops

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/capreport/capreport/check"
	"github.com/capreport/capreport/render/gitops/argo"
	"github.com/capreport/capreport/render/gitops/flux"
	"github.com/capreport/capreport/render/internal/object"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/repourl"
	"github.com/capreport/capreport/render/internal/source"
)

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
	// Builds, when set, holds the delivered builds of an earlier Follow of
	// the same run, which this one takes instead of building them again
	// (the second Follow of a run whose deferral failed, Followed.Redo).
	Builds *Builds
}

// Builds are the delivered builds of a run (renderMemo): a build depends
// only on its spec and the repository, which a run does not change.
type Builds struct{ memo *renderMemo }

// NewBuilds makes the store of a run's delivered builds, for Config.Builds.
func NewBuilds(parallelism int) *Builds {
	return &Builds{newRenderMemo(prefetchLimit(parallelism))}
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
	// Redo, when set, says why the sources left unrendered
	// (source.Out.Deferred) must be rendered and followed again: nothing
	// else of the result stands (deferral.go).
	Redo string
}

// Follow expands the Flux and Argo CD objects of the standalone renders
// outs. Sources that a GitOps object delivers lose their standalone
// render (status delivered): their objects come from the delivery, with
// its settings and chain. Sources beneath a GitOps object whose build
// fails are withheld: the controllers apply nothing of a failed build.
func Follow(ctx context.Context, src Sources, cfg Config, outs []source.Out) Followed {
	deferral := newDeferralCheck(outs)
	if !hasGitOps(outs) {
		if deferral != nil {
			return Followed{Redo: "no GitOps object was rendered to deliver the sources left to one"}
		}
		return Followed{Outs: outs}
	}
	if cfg.Builds == nil {
		cfg.Builds = NewBuilds(cfg.Parallelism)
	}
	g := &engine{src: src, ctx: ctx, repo: cfg.Repo, parallelism: cfg.Parallelism,
		delivered: cfg.Builds.memo,
		memo:      map[string]expansionMemo{}, byKindNS: map[string][]int{},
		failedBy: map[string]*object.Object{}, failedInRun: map[string]bool{}, deferral: deferral}
	repoURLs := repourl.NewMatcher(cfg.RepoURLs)
	g.flux = flux.New(flux.Config{Repo: cfg.Repo, RepoURLs: repoURLs, SourceMaps: cfg.SourceMaps, Fetch: cfg.Fetch, Engine: fluxView{g}})
	g.argo = argo.New(argo.Config{Repo: cfg.Repo, RepoURLs: repoURLs, SourceMaps: cfg.SourceMaps, Fetch: cfg.Fetch, Render: g.render})
	for _, o := range outs {
		g.know(o.Objects)
	}
	g.deferral.knowStandalone(len(g.known))
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
			supersede(&outs[i], suppressed[i])
			continue
		}
		for _, o := range outs[i].Objects {
			if kindOfGitOps(&o) != notGitOps {
				queue = append(queue, pending{obj: o, chain: []object.Link{linkOf(&o)}})
			}
		}
	}
	delivered := g.run(queue)
	g.delivered.wait()
	g.withholdFailedDeliveries(outs, suppressed, stash)
	delivered, late := g.supersedeLate(outs, delivered)
	if why := g.deferral.redo(outs, delivered, g.renderOwn, g.readRepoFile); why != "" {
		return Followed{Redo: why}
	}
	queue = slices.DeleteFunc(queue, func(p pending) bool { return late[linkOf(&p.obj)] })
	outs = append(outs, delivered...)
	findings := append(g.findings, g.withheldFindings()...)
	findings = append(findings, unappliedRoots(queue, delivered)...)
	outs, twice := dedupeDeliveries(outs)
	return Followed{Outs: outs, Findings: append(findings, twice...), Withheld: g.withheld}
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
