package kustomize

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"

	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/render/helm"
	"github.com/capreport/capreport/render/internal/kustread"
	"github.com/capreport/capreport/render/internal/repofs"
)

// Annotations krusty adds on request and capreport strips.
const (
	originAnnotation = "config.kubernetes.io/origin"
	// helmOriginAnnotation carries "file:line" of objects inflated from a
	// helmCharts entry through krusty, then is stripped.
	helmOriginAnnotation = "render.capreport.io/origin"
	// helmAnnotationLinesAnnotation carries, as JSON, the rendered-output
	// line and value of each annotation of such an object, then is stripped.
	helmAnnotationLinesAnnotation = "render.capreport.io/annotation-lines"
)

// MarkHelmOrigin annotates an object a helmCharts entry inflated with the
// template it came from, and the rendered line of each of its annotations,
// for TakeOrigin to read back after the build; it returns its document.
func MarkHelmOrigin(h helm.Object) map[string]any {
	md, _ := h.Doc["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		h.Doc["metadata"] = md
	}
	ann, _ := md["annotations"].(map[string]any)
	if ann == nil {
		ann = map[string]any{}
		md["annotations"] = ann
	}
	if len(h.AnnLines) > 0 {
		at := make(map[string]helmAnnPos, len(h.AnnLines))
		for k, l := range h.AnnLines {
			if v, ok := ann[k]; ok {
				at[k] = helmAnnPos{Line: l, Value: annotationText(v)}
			}
		}
		if j, err := json.Marshal(at); err == nil {
			ann[helmAnnotationLinesAnnotation] = string(j)
		}
	}
	ann[helmOriginAnnotation] = h.File + ":" + strconv.Itoa(h.Line)
	return h.Doc
}

// TakeOrigin reads and strips the origin annotations of one built object
// and returns its root-relative file and line, and the lines in that file
// of the annotations the built object still carries unchanged from it.
func TakeOrigin(doc map[string]any, buildDir string, r *repofs.Repo, lines *LineIndex) (string, int, map[string]int) {
	md, _ := doc["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	if ann == nil {
		return "", 0, nil
	}
	defer func() {
		if len(ann) == 0 {
			delete(md, "annotations")
		}
	}()
	if h, ok := ann[helmOriginAnnotation].(string); ok {
		delete(ann, helmOriginAnnotation)
		delete(ann, originAnnotation)
		al := helmAnnotationLines(ann)
		if i := strings.LastIndex(h, ":"); i > 0 {
			n, _ := strconv.Atoi(h[i+1:])
			return h[:i], n, al
		}
		return h, 0, al
	}
	delete(ann, helmAnnotationLinesAnnotation)
	abs, generated, ok := originFile(ann, buildDir)
	if !ok || !r.Within(abs) {
		return "", 0, nil
	}
	file := r.Rel(abs)
	if generated {
		return file, 0, nil // point at the kustomization that configured it
	}
	kind, _ := doc["kind"].(string)
	name, _ := md["name"].(string)
	d, ok := lines.find(abs, kind, name)
	if !ok {
		return file, 0, nil
	}
	return file, d.line, d.annotationLines(ann)
}

// helmAnnPos is one entry of helmAnnotationLinesAnnotation.
type helmAnnPos struct {
	Line  int    `json:"l"`
	Value string `json:"v"`
}

// originFile is the file an object came from, taking the annotations
// that say so off it: capreport's file annotation (kustread), else
// krusty's origin, whose path is relative to the build's directory; an
// origin with only configuredIn is a generated object's, and points at
// the kustomization that configured it.
func originFile(ann map[string]any, buildDir string) (abs string, generated, ok bool) {
	o, hasOrigin := ann[originAnnotation].(string)
	delete(ann, originAnnotation)
	if f, ok := ann[kustread.FileAnnotation].(string); ok {
		delete(ann, kustread.FileAnnotation)
		kf, generated := strings.CutPrefix(f, kustread.GeneratedPrefix)
		return kf, generated, true
	}
	if !hasOrigin {
		return "", false, false
	}
	var origin struct {
		Path         string `json:"path"`
		ConfiguredIn string `json:"configuredIn"`
	}
	if err := sigsyaml.Unmarshal([]byte(o), &origin); err != nil {
		return "", false, false
	}
	p := origin.Path
	if p == "" {
		p = origin.ConfiguredIn
	}
	if p == "" {
		return "", false, false
	}
	return filepath.Clean(filepath.Join(buildDir, filepath.FromSlash(p))), origin.Path == "", true
}

// helmAnnotationLines reads and strips helmAnnotationLinesAnnotation and
// returns the line of each annotation a patch left unchanged.
func helmAnnotationLines(ann map[string]any) map[string]int {
	j, ok := ann[helmAnnotationLinesAnnotation].(string)
	delete(ann, helmAnnotationLinesAnnotation)
	if !ok {
		return nil
	}
	var at map[string]helmAnnPos
	if json.Unmarshal([]byte(j), &at) != nil {
		return nil
	}
	var out map[string]int
	for k, v := range ann {
		p, ok := at[k]
		if !ok || p.Line <= 0 || p.Value != annotationText(v) {
			continue
		}
		if out == nil {
			out = make(map[string]int, len(at))
		}
		out[k] = p.Line
	}
	return out
}

// A LineIndex finds an object's document in its resource file.
type LineIndex struct {
	r          *repofs.Repo
	maxObjects int // read of one file
	cache      map[string][]docPos
	memo       *ReadMemo
}

// NewLineIndex finds documents in r's files, reading each once and at
// most maxObjects documents of it; memo, when not nil, keeps what it
// found for the process's other builds.
func NewLineIndex(r *repofs.Repo, maxObjects int, memo *ReadMemo) *LineIndex {
	return &LineIndex{r: r, maxObjects: maxObjects, cache: map[string][]docPos{}, memo: memo}
}

// find returns the document of this kind whose name matches the built name
// (exactly, else as the only name contained in it or the only document of
// the kind, since name prefixes and suffixes change it); ok is false if
// unsure. A document of another kind never matches.
func (li *LineIndex) find(abs, kind, name string) (docPos, bool) {
	var sameKind, contained []docPos
	for _, d := range li.docs(abs) {
		if d.kind != kind {
			continue
		}
		if d.name == name {
			return d, true
		}
		sameKind = append(sameKind, d)
		if d.name != "" && strings.Contains(name, d.name) {
			contained = append(contained, d)
		}
	}
	if len(contained) == 1 {
		return contained[0], true
	}
	if len(sameKind) == 1 {
		return sameKind[0], true
	}
	return docPos{}, false
}

// docs returns the documents of resource file abs, read once. A file
// that cannot be read has none: find is then unsure, and the object keeps
// its file but no line.
func (li *LineIndex) docs(abs string) []docPos {
	if docs, ok := li.cache[abs]; ok {
		return docs
	}
	var docs []docPos
	if data, err := li.r.ReadFile(abs); err == nil {
		docs = li.memo.docs(abs, data, li.maxObjects)
	}
	li.cache[abs] = docs
	return docs
}
