// Package merge joins the JSON reports of several capreport runs (the jobs
// of a monorepo, the roots of a matrix) into one, as `capreport merge`
// does: workloads keyed by root and id, conflicts settled or refused, the
// paths kept pointing at their files and the summary recomputed. It reads
// only the contract, so it links none of the pipeline.
package merge

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/capreport/capreport/contract"
)

// Which report wins a true conflict (--prefer); none makes it an error.
const (
	PreferNone  = ""
	PreferFirst = "first"
	PreferLast  = "last"
)

// ConflictError is a true conflict left unsettled: one root and id, two
// different workloads, and no prefer. Its message names both files and the
// way out.
type ConflictError struct{ msg string }

func (e *ConflictError) Error() string { return e.msg }

// mergeRow is one workload kept for an id, with the report it came from.
type mergeRow struct {
	w    contract.Workload
	sum  [sha256.Size]byte // of the workload's JSON as read (paths rebased), to compare rows: the text itself would hold a second copy of every report
	from int               // index of its report
}

// Reports joins reports (names are their files, for messages).
// Workloads are keyed by the root of their report and their id, because an
// id (namespace/Kind/name) is unique only within one scan: two services of
// a monorepo may both hold charts/web. So:
//
//   - the same workload twice (byte-for-byte, paths included: two jobs
//     that scanned the same overlay) is kept once, silently;
//   - different workloads with one id from different roots are all kept,
//     each id qualified by its root ("root:id"), so no failing row can
//     hide behind a passing one;
//   - different workloads with one id from one root are a true conflict:
//     an error, unless prefer names the report that wins (a warning then).
//
// Every workload records its root. When the reports' paths are relative to
// different directories, each path is prefixed with its report's directory
// so that it still names the file. The first report's tool is kept; roots
// are joined; the latest generatedAt wins; the summary is recomputed.
func Reports(rs []contract.Report, names []string, prefer string) (contract.Report, []string, error) {
	out := mergeHeader(rs)
	shared := sameBase(rs)
	labels := rootLabels(rs)
	rows := map[string][]mergeRow{}
	var warnings []string
	for i, r := range rs {
		if !shared {
			r = rebased(r, contract.PathBase(r))
		}
		for _, w := range r.Workloads {
			b, _ := json.Marshal(w) // a decoded Workload always marshals
			kept, warning, err := addRow(rows[w.ID], mergeRow{w: w, sum: sha256.Sum256(b), from: i}, rs, names, prefer)
			if err != nil {
				return contract.Report{}, nil, err
			}
			if warning != "" {
				warnings = append(warnings, warning)
			}
			rows[w.ID] = kept
		}
		out.Sources = append(out.Sources, r.Sources...)
		out.Findings = append(out.Findings, r.Findings...)
	}
	for _, id := range sortedKeysOf(rows) {
		for _, row := range rows[id] {
			w := row.w
			w.Root = labels[row.from]
			if len(rows[id]) > 1 {
				w.ID = labels[row.from] + ":" + w.ID
			}
			out.Workloads = append(out.Workloads, w)
		}
	}
	contract.SortByID(out.Workloads)
	out.Summary = contract.Summarize(&out)
	return out, warnings, nil
}

// addRow adds a workload to the rows kept for its id: a copy of a kept row
// is dropped, another root's row is added, and a different row of the same
// root is a conflict that prefer settles (the warning says how) or not
// (the error names both files and the way out).
func addRow(kept []mergeRow, row mergeRow, rs []contract.Report, names []string, prefer string) ([]mergeRow, string, error) {
	for k, old := range kept {
		if old.sum == row.sum {
			return kept, "", nil
		}
		if rootKey(rs[old.from]) != rootKey(rs[row.from]) {
			continue
		}
		id, a, b := row.w.ID, names[old.from], names[row.from]
		switch prefer {
		case PreferFirst:
			return kept, fmt.Sprintf("workload %s is in %s and, different, in %s; keeping %s (--prefer first)", id, a, b, a), nil
		case PreferLast:
			kept[k] = row
			return kept, fmt.Sprintf("workload %s is in %s and, different, in %s; keeping %s (--prefer last)", id, a, b, b), nil
		}
		return nil, "", &ConflictError{msg: fmt.Sprintf(
			"workload %s of root %s is in %s and, different, in %s: the same root priced twice; merge one of them, or keep one with --prefer first or --prefer last",
			id, rootLabel(rs[row.from]), a, b)}
	}
	return append(kept, row), "", nil
}

// mergeHeader starts the merged report: schema, the first tool, the latest
// time, the roots joined and, when every report's paths are relative to one
// directory, that directory as the repository root.
func mergeHeader(rs []contract.Report) contract.Report {
	out := contract.Report{
		SchemaVersion: contract.SchemaVersion,
		Workloads:     []contract.Workload{},
		Sources:       []contract.Source{},
		Findings:      []contract.Finding{},
	}
	var roots []string
	for i, r := range rs {
		if i == 0 {
			out.Tool = r.Tool
		}
		if r.GeneratedAt > out.GeneratedAt {
			out.GeneratedAt = r.GeneratedAt
		}
		if r.Root != "" && !slices.Contains(roots, r.Root) {
			roots = append(roots, r.Root)
		}
	}
	out.Root = strings.Join(roots, ", ")
	if len(rs) > 0 && sameBase(rs) {
		if base := contract.PathBase(rs[0]); base != out.Root {
			out.RepoRoot = base
		}
	}
	return out
}

// sameBase tells whether every report's paths are relative to one directory.
func sameBase(rs []contract.Report) bool {
	for _, r := range rs {
		if contract.PathBase(r) != contract.PathBase(rs[0]) {
			return false
		}
	}
	return true
}

// rootKey identifies a scan: the directory its paths are relative to and
// the path it scanned.
func rootKey(r contract.Report) string { return r.RepoRoot + "\x00" + r.Root }

// rootLabel is how a workload's root is shown: the scanned path.
func rootLabel(r contract.Report) string {
	if r.Root == "" {
		return "."
	}
	return r.Root
}

// rootLabels names each report's root; two scans of one path in different
// repositories are told apart by their repository root.
func rootLabels(rs []contract.Report) []string {
	labels := make([]string, len(rs))
	for i, r := range rs {
		labels[i] = rootLabel(r)
		for _, o := range rs {
			if rootLabel(o) == labels[i] && rootKey(o) != rootKey(r) && r.RepoRoot != "" {
				labels[i] = path.Join(r.RepoRoot, labels[i])
				break
			}
		}
	}
	return labels
}

// sortedKeysOf returns a map's keys in order.
func sortedKeysOf[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// rebased is a copy of r with every path prefixed by base, the directory
// its paths are relative to, for a merge of reports relative to different
// directories: "charts/web" of two services must not read as one chart.
func rebased(r contract.Report, base string) contract.Report {
	join := func(p string) string {
		if p == "" || path.IsAbs(p) {
			return p
		}
		return path.Join(base, p)
	}
	loc := func(l contract.Location) contract.Location {
		l.File, l.Source, l.Via = join(l.File), join(l.Source), join(l.Via)
		l.Chain = slices.Clone(l.Chain)
		for i := range l.Chain {
			l.Chain[i].File = join(l.Chain[i].File)
		}
		return l
	}
	findings := func(fs []contract.Finding) []contract.Finding {
		fs = slices.Clone(fs)
		for i := range fs {
			if fs[i].Location != nil {
				l := loc(*fs[i].Location)
				fs[i].Location = &l
			}
		}
		return fs
	}
	r.Workloads = slices.Clone(r.Workloads)
	for i := range r.Workloads {
		w := &r.Workloads[i]
		w.Source = loc(w.Source)
		w.Findings = findings(w.Findings)
		if w.Assumptions != nil {
			as := make(map[string]contract.Assumption, len(w.Assumptions))
			for k, a := range w.Assumptions {
				if a.Where != nil {
					l := loc(*a.Where)
					a.Where = &l
				}
				as[k] = a
			}
			w.Assumptions = as
		}
	}
	r.Findings = findings(r.Findings)
	r.Sources = slices.Clone(r.Sources)
	for i := range r.Sources {
		src := &r.Sources[i]
		src.Path = join(src.Path)
		src.Chain = loc(contract.Location{Chain: src.Chain}).Chain
	}
	return r
}
