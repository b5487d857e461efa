package calibrate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/pmezard/go-difflib/difflib"
	yaml "go.yaml.in/yaml/v3"

	"github.com/capreport/capreport/config"
)

// Apply writes the measured values of results into a .capreport.yaml's
// workloads: entries (matched by namespace, kind and name; appended when
// none matches), each beside its measured: record. It edits the YAML nodes,
// so the file's comments and order stay. A value whose text and record
// (query, window, quantile, samples) are unchanged is left alone, record
// time included; when nothing changes, data is returned as it was.
func Apply(file string, data []byte, results []Result) ([]byte, bool, error) {
	doc, err := decodeDoc(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", file, err)
	}
	root := doc.Content[0]
	seq := mapGet(root, "workloads")
	if seq == nil || seq.Kind == yaml.ScalarNode && seq.Tag == "!!null" {
		seq = &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq"}
		mapSet(root, "workloads", seq)
	}
	if seq.Kind != yaml.SequenceNode {
		return nil, false, fmt.Errorf("%s:%d: workloads must be a list", file, seq.Line)
	}
	changed := false
	for _, r := range results {
		if len(r.Values) > 0 && applyOne(seq, r) {
			changed = true
		}
	}
	if !changed {
		return data, false, nil
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, false, fmt.Errorf("%s: %w", file, err)
	}
	if err := enc.Close(); err != nil {
		return nil, false, err
	}
	cfg, err := config.Parse(file, buf.Bytes())
	if err != nil {
		return nil, false, fmt.Errorf("the edited configuration does not load (a capreport bug): %w", err)
	}
	if err := checkWritten(cfg, len(seq.Content), results); err != nil {
		return nil, false, fmt.Errorf("the edited configuration does not read back as written (a capreport bug): %w", err)
	}
	return buf.Bytes(), true, nil
}

// checkWritten holds the edited file, read back as cfg, to what Apply
// meant: as many workloads entries as it holds, and for each measured
// workload an entry naming exactly it, each value written there with its
// record. The names come from the cluster and the repository; none may
// turn into another entry or key.
func checkWritten(cfg *config.Config, entries int, results []Result) error {
	if len(cfg.Workloads) != entries {
		return fmt.Errorf("%d workloads entries read back, %d written", len(cfg.Workloads), entries)
	}
	for _, r := range results {
		if len(r.Values) == 0 || r.Workload.Name == "" {
			continue
		}
		e := exactEntry(cfg.Workloads, r.Workload)
		if e == nil {
			return fmt.Errorf("no workloads entry reads back as %q", r.Workload.Ref())
		}
		for _, v := range r.Values {
			if e.Assumptions.MeasuredOf(v.Key) == nil {
				return fmt.Errorf("%q: %s reads back without its measurement", r.Workload.Ref(), v.Key.YAMLName())
			}
		}
	}
	return nil
}

// exactEntry is the last entry of ws written for w (findEntry's, read back).
func exactEntry(ws []config.Workload, w Workload) *config.Workload {
	var found *config.Workload
	for i, e := range ws {
		if e.Namespace == config.LiteralGlob(w.Namespace) && e.Name == config.LiteralGlob(w.Name) &&
			strings.EqualFold(e.Kind, config.LiteralGlob(w.Kind)) {
			found = &ws[i]
		}
	}
	return found
}

func decodeDoc(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc)
	if errors.Is(err, io.EOF) || err == nil && len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode, Tag: "!!map"}}}, nil
	}
	if err != nil {
		return nil, err
	}
	if c := doc.Content[0]; c.Kind == yaml.ScalarNode && c.Tag == "!!null" {
		doc.Content[0] = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	}
	if doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("line %d: the configuration must be a mapping", doc.Content[0].Line)
	}
	return &doc, nil
}

// applyOne writes one workload's values; it reports whether anything
// changed.
func applyOne(seq *yaml.Node, r Result) bool {
	w := r.Workload
	if w.Name == "" {
		return false // no entry can name it alone: the empty glob matches every workload
	}
	entry := findEntry(seq, w)
	if entry == nil {
		entry = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		mapSet(entry, "namespace", strNode(config.LiteralGlob(w.Namespace)))
		mapSet(entry, "kind", strNode(config.LiteralGlob(w.Kind)))
		mapSet(entry, "name", strNode(config.LiteralGlob(w.Name)))
		seq.Content = append(seq.Content, entry)
	}
	measured := mapGet(entry, "measured")
	changed := false
	for _, v := range r.Values {
		key := v.Key.YAMLName()
		var rec *yaml.Node
		if measured != nil {
			rec = mapGet(measured, key)
		}
		if cur := mapGet(entry, key); cur != nil && nodeText(cur) == v.Text && sameRecord(rec, v.Record) {
			continue
		}
		changed = true
		mapSetBefore(entry, key, valueNode(v), "measured")
		if measured == nil {
			measured = &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
			mapSet(entry, "measured", measured)
		}
		mapSet(measured, key, recordNode(v.Record))
	}
	return changed
}

// findEntry is the entry naming exactly this workload: its literal globs
// (config.LiteralGlob), not a glob that happens to match it, since
// calibrate writes one workload's numbers.
func findEntry(seq *yaml.Node, w Workload) *yaml.Node {
	var found *yaml.Node
	for _, e := range seq.Content {
		if e.Kind != yaml.MappingNode {
			continue
		}
		if nodeText(mapGet(e, "namespace")) == config.LiteralGlob(w.Namespace) && nodeText(mapGet(e, "name")) == config.LiteralGlob(w.Name) &&
			strings.EqualFold(nodeText(mapGet(e, "kind")), config.LiteralGlob(w.Kind)) {
			found = e // the last wins, as entries do
		}
	}
	return found
}

func sameRecord(n *yaml.Node, m config.Measurement) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	q, _ := strconv.ParseFloat(nodeText(mapGet(n, "quantile")), 64)
	s, _ := strconv.Atoi(nodeText(mapGet(n, "samples")))
	return nodeText(mapGet(n, "query")) == m.Query && nodeText(mapGet(n, "window")) == m.Window &&
		q == m.Quantile && s == m.Samples
}

func valueNode(v Value) *yaml.Node {
	if v.Key == config.KeyOverload {
		return &yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Style: yaml.FlowStyle, Content: []*yaml.Node{scalar(v.Text)}}
	}
	return scalar(v.Text)
}

func recordNode(m config.Measurement) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Style: yaml.FlowStyle}
	mapSet(n, "query", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: m.Query, Style: yaml.DoubleQuotedStyle})
	mapSet(n, "window", scalar(m.Window))
	if m.Quantile > 0 {
		mapSet(n, "quantile", scalar(strconv.FormatFloat(m.Quantile, 'f', -1, 64)))
	}
	mapSet(n, "samples", scalar(strconv.Itoa(m.Samples)))
	mapSet(n, "at", scalar(m.At.UTC().Format(time.RFC3339)))
	return n
}

func scalar(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Value: s} }

// strNode is a string from the cluster or the repository (a namespace,
// kind or name), tagged as a string so that the encoder quotes what YAML
// would read as something else ("null", "~", "true"); one with a line
// break is double-quoted, on one line.
func strNode(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.ContainsAny(s, "\n\r\u0085\u2028\u2029") {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

// nodeText is a scalar's text, or a sequence's scalars joined by commas.
func nodeText(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	if n.Kind == yaml.SequenceNode {
		parts := make([]string, len(n.Content))
		for i, c := range n.Content {
			parts[i] = c.Value
		}
		return strings.Join(parts, ",")
	}
	return n.Value
}

func mapGet(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func mapSet(m *yaml.Node, key string, v *yaml.Node) { mapSetBefore(m, key, v, "") }

// mapSetBefore replaces key's value in place, or adds the key before the
// key named before (at the end when there is none).
func mapSetBefore(m *yaml.Node, key string, v *yaml.Node, before string) {
	at := len(m.Content)
	for i := 0; i+1 < len(m.Content); i += 2 {
		switch m.Content[i].Value {
		case key:
			v.LineComment = m.Content[i+1].LineComment
			m.Content[i+1] = v
			return
		case before:
			if before != "" && at == len(m.Content) {
				at = i
			}
		}
	}
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	m.Content = append(m.Content[:at], append([]*yaml.Node{k, v}, m.Content[at:]...)...)
}

// Diff is the unified diff of a file's change, for --dry-run.
func Diff(file string, before, after []byte) string {
	d, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(before)), B: difflib.SplitLines(string(after)),
		FromFile: "a/" + file, ToFile: "b/" + file, Context: 3,
	})
	return d
}
