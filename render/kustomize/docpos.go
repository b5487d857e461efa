package kustomize

import (
	"fmt"
	"strconv"

	"github.com/capreport/capreport/render/internal/yamldoc"
)

// Where a document and its annotations stand in a resource file: what a
// LineIndex finds objects by and a ReadMemo keeps for the process.

// docPos is one document of a resource file.
type docPos struct {
	kind, name string
	line       int
	// ann holds each metadata.annotations key's line in the file and value.
	ann map[string]annPos
}

// annPos is where an annotation stands in its resource file, and its value.
type annPos struct {
	line  int
	value string
}

// annotationLines returns the file line of each built annotation whose key
// and value the document has: one a patch or commonAnnotations added or
// changed has no line. Nil when none is known.
func (d docPos) annotationLines(built map[string]any) map[string]int {
	var out map[string]int
	for k, v := range built {
		p, ok := d.ann[k]
		if !ok || p.value != annotationText(v) {
			continue
		}
		if out == nil {
			out = make(map[string]int, len(built))
		}
		out[k] = p.line
	}
	return out
}

// annotationText is the comparable text of a decoded annotation value.
func annotationText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// docPosOf is where a decoded document stands: its kind, name and line,
// and the line and value of each of its annotations.
func docPosOf(raw yamldoc.Raw) docPos {
	k, _ := raw.Doc["kind"].(string)
	md, _ := raw.Doc["metadata"].(map[string]any)
	n, _ := md["name"].(string)
	d := docPos{kind: k, name: n, line: raw.Line}
	if len(raw.AnnLines) == 0 {
		return d
	}
	ann, _ := md["annotations"].(map[string]any)
	d.ann = make(map[string]annPos, len(raw.AnnLines))
	for key, l := range raw.AnnLines {
		if v, ok := ann[key]; ok {
			d.ann[key] = annPos{line: l, value: annotationText(v)}
		}
	}
	return d
}
