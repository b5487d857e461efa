package render

import (
	"bytes"
	"context"
	"path"
	"slices"
	"strings"

	"github.com/capreport/capreport/render/gitops"
)

// On a production Flux repository most directories are delivered by a
// Flux Kustomization (home-ops-bykaj: 38 of its 43 sources), and following
// the repository supersedes each one's standalone render with its delivery:
// rendered on its own first, such a directory was a build made only to be
// thrown away, and those builds cost as much as the deliveries. So a run
// that follows GitOps objects leaves unrendered (defers) the Kustomize and
// plain sources beneath the literal spec.path of a Flux Kustomization
// written in the repository, one that does not manage itself (its own file
// outside its path: a self-managing root delivers nothing it is not found
// beside). The engine follows the rest and checks that leaving them out
// changed nothing (gitops/deferral.go); when it did (a wrong guess: the
// Kustomization reads another repository, fails, or is never applied),
// the deferred sources are rendered and the repository followed again, so
// the report is the one a run without deferral makes.

// fluxGroup marks the files that may hold a Flux Kustomization.
var fluxGroup = []byte(gitops.FluxKustomizationGroup)

// deferrable marks the specs to leave to their delivery; nil when none
// are, or the run does not follow GitOps objects or keeps a render cache
// (which makes a standalone render cheap and records each one).
func (rd *renderer) deferrable(specs []SourceSpec) []bool {
	if rd.opts.NoGitOps || rd.cache != nil || rd.opts.noDeferral {
		return nil
	}
	paths := rd.fluxPaths()
	if len(paths) == 0 {
		return nil
	}
	var deferred []bool
	for i, s := range specs {
		if s.Explicit || (s.Type != SourceKustomize && s.Type != SourcePlain) || !rd.reachedFrom(s, paths) {
			continue
		}
		if deferred == nil {
			deferred = make([]bool, len(specs))
		}
		deferred[i] = true
	}
	return deferred
}

// fluxPaths are the literal spec.paths (clean, root-relative) of the Flux
// Kustomizations written in the manifest files discovery met that do not
// stand beneath their own path.
func (rd *renderer) fluxPaths() map[string]bool {
	paths := map[string]bool{}
	for _, rel := range rd.manifests {
		if fi, err := rd.repo.Stat(rd.repo.Abs(rel)); err != nil || fi.Size() > rd.opts.MaxFileBytes {
			continue // its render says why
		}
		data, err := rd.repo.ReadFile(rd.repo.Abs(rel))
		if err != nil || !bytes.Contains(data, fluxGroup) {
			continue
		}
		data, _ = normalizeText(data)
		for _, p := range gitops.KustomizationPaths(data) {
			if !beneath(path.Dir(rel), p) {
				paths[p] = true
			}
		}
	}
	return paths
}

// beneath reports whether p is dir or lies below it.
func beneath(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// reachedFrom reports whether a build of one of paths reads the source s,
// as Flux builds a path: through the kustomization there, or, with none,
// the one it generates listing every manifest below, which takes a
// directory with a kustomization whole and goes no further. A source that
// no kustomization refers to (every discovered one) is read only from a
// path with no kustomization above it on the way down: from its own
// directory (a Kustomize source), or from its directory or above (a plain
// file).
func (rd *renderer) reachedFrom(s SourceSpec, paths map[string]bool) bool {
	dir := s.Path
	if s.Type == SourcePlain {
		dir = path.Dir(s.Path)
	}
	for q := dir; ; q = path.Dir(q) {
		if rd.kustDirs[q] && (q != s.Path || s.Type == SourcePlain) {
			return false // its kustomization lists what it reads, not s
		}
		if paths[q] {
			return true
		}
		if q == "." || q == "/" || q == "" {
			return false
		}
	}
}

// renderDeferring renders the specs not deferred; each deferred one is a
// placeholder the GitOps engine supersedes or asks for.
func (rd *renderer) renderDeferring(ctx context.Context, specs []SourceSpec, deferred []bool) []sourceOut {
	if deferred == nil {
		return rd.renderAll(ctx, specs)
	}
	var now []SourceSpec
	for i, s := range specs {
		if !deferred[i] {
			now = append(now, s)
		}
	}
	rd.warm = true
	rendered := rd.renderAll(ctx, now)
	rd.warm = false
	outs := make([]sourceOut, len(specs))
	for i, s := range specs {
		if !deferred[i] {
			outs[i], rendered = rendered[0], rendered[1:]
			continue
		}
		outs[i] = sourceOut{Spec: s, Deferred: true,
			Result: SourceResult{Path: s.Path, Type: s.Type, ValueSet: s.Name, Status: StatusRendered}}
	}
	return outs
}

// standaloneCopies copies outs so that following one copy leaves the
// other as rendered: the engine sets fields of each source and object.
func standaloneCopies(outs []sourceOut) []sourceOut {
	c := slices.Clone(outs)
	for i := range c {
		c[i].Objects = slices.Clone(c[i].Objects)
	}
	return c
}

// renderDeferred renders the placeholders among outs.
func (rd *renderer) renderDeferred(ctx context.Context, outs []sourceOut) []sourceOut {
	var specs []SourceSpec
	for _, o := range outs {
		if o.Deferred {
			specs = append(specs, o.Spec)
		}
	}
	rendered := rd.renderAll(ctx, specs)
	for i := range outs {
		if outs[i].Deferred {
			outs[i], rendered = rendered[0], rendered[1:]
		}
	}
	return outs
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
