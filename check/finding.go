package check

import (
	"strconv"
	"strings"
)

// Finding is one failed check, whoever raised it: render (a source that
// did not render as the cluster would), analyze (an autoscaler the
// manifests leave unclear) or the ledger. It is the report's finding as
// well (contract.Finding names this type), so nothing converts one layer's
// findings into another's.
type Finding struct {
	Check       string    `json:"check"` // a registered ID: Lookup(Check) succeeds
	Severity    string    `json:"severity"`
	Message     string    `json:"message"`
	Remediation string    `json:"remediation,omitempty"`
	Location    *Location `json:"location,omitempty"`
	// Ignored findings stay in the report with the reason given in the
	// ignore-check.capreport.io/<ID> annotation; they never fail the run.
	Ignored      bool   `json:"ignored,omitempty"`
	IgnoreReason string `json:"ignoreReason,omitempty"`
	// RestsOn names the assumptions that decide the finding, each with
	// where its value came from; empty for findings that need none (a dead
	// band, a dangling target, an invalid object).
	RestsOn []Basis `json:"restsOn,omitempty"`
	// RestsOnDefaults: a deciding assumption is a built-in default, so the
	// finding is at most a warning (unless failOnDefaults / --strict).
	RestsOnDefaults bool `json:"restsOnDefaults,omitempty"`

	// Source is the ID of the source a render finding belongs to
	// (Origin.Source form), empty for findings of discovery as a whole.
	// Render groups by it; the report does not carry it.
	Source string `json:"-"`
	// Cause groups findings with one cause across sources (a dependency
	// that many charts lack): render folds them into one finding. It reads
	// as the subject of a sentence. The report does not carry it.
	Cause string `json:"-"`
	// About names the object a finding of one rendered object is about,
	// and what the finding says of it, for later stages to act on without
	// reading the message (analyze names a GitOps object not followed
	// beside a missing scale target). The report does not carry it: the
	// message says the same.
	About *Subject `json:"-"`
}

// Subject is the object a finding is about.
type Subject struct {
	Kind, Namespace, Name string
	// Detail is what the finding says of the object (for a GitOps object
	// not followed, why).
	Detail string
}

// At is the location of a file and line, nil when file is empty (a
// finding of the run as a whole).
func At(file string, line int) *Location {
	if file == "" {
		return nil
	}
	return &Location{File: file, Line: line}
}

// File is the file the finding points at, "" when it points at none.
func (f Finding) File() string {
	if f.Location == nil {
		return ""
	}
	return f.Location.File
}

// Line is the line the finding points at, 0 when it points at none.
func (f Finding) Line() int {
	if f.Location == nil {
		return 0
	}
	return f.Location.Line
}

// Basis is one assumption a finding rests on.
type Basis struct {
	Assumption string `json:"assumption"` // a key of the workload's assumptions
	Value      string `json:"value"`
	From       string `json:"from"` // where the value came from: "annotation", "config", "default", ...
}

// Location points into the repository.
type Location struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	// Source is the chart, overlay or file that rendered the object.
	Source string `json:"source,omitempty"`
	// Via is the kustomization or chart that brought File in, for an
	// object a GitOps object delivered.
	Via string `json:"via,omitempty"`
	// Chain lists the GitOps objects that delivered the object, outermost
	// first.
	Chain []Link `json:"chain,omitempty"`
	// Partial: the render left something out; the object may differ in
	// the cluster.
	Partial bool `json:"partial,omitempty"`
}

// ChainString is the delivery in one line: each GitOps object, then the
// kustomization or chart that brought the file in, then the file, joined
// by " → " ("" when not delivered).
func (l Location) ChainString() string {
	if len(l.Chain) == 0 {
		return ""
	}
	parts := make([]string, 0, len(l.Chain)+2)
	for _, c := range l.Chain {
		parts = append(parts, c.String())
	}
	if l.Via != "" && l.Via != l.File {
		parts = append(parts, l.Via)
	}
	if l.File != "" {
		parts = append(parts, l.File)
	}
	return strings.Join(parts, " → ")
}

// String formats the location as file:line (source), the source left out
// when it is the file itself.
func (l Location) String() string {
	s := l.File
	if l.Line > 0 {
		s += ":" + strconv.Itoa(l.Line)
	}
	if l.Source != "" && l.Source != l.File {
		s += " (" + l.Source + ")"
	}
	return s
}

// Link is one GitOps object (Flux Kustomization or HelmRelease, Argo CD
// Application or ApplicationSet) of a delivery chain, where it stands.
type Link struct {
	File      string `json:"file"`
	Line      int    `json:"line,omitempty"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// String reads "file Kind namespace/name".
func (l Link) String() string {
	name := l.Name
	if l.Namespace != "" {
		name = l.Namespace + "/" + name
	}
	return l.File + " " + l.Kind + " " + name
}
