package appset

import (
	"errors"
	"strings"
	"text/template"
	"text/template/parse"
)

// engine builds the function map lazily: most ApplicationSets hold no Go template at all.
func (e *expander) engine() *engine {
	if e.eng == nil {
		en := &engine{e: e, cache: map[string]*template.Template{}}
		en.base = template.New("base").Funcs(en.funcMap())
		e.eng = en
	}
	return e.eng
}

func (en *engine) render(text string, params map[string]any, options []string, limit int) (string, error) {
	t, err := en.parse(text, options)
	if err != nil {
		return "", err
	}
	en.calls, en.alloc = 0, 0
	w := &limitWriter{e: en.e, left: limit}
	if err := t.Execute(w, params); err != nil {
		var f *fatal
		if errors.As(err, &f) && (f.check == CheckTooMany || f.ours) {
			return "", f
		}
		return "", templatef("failed to execute go template %s: %v", clip(text), err)
	}
	return w.b.String(), nil
}

func (en *engine) parse(text string, options []string) (*template.Template, error) {
	key := strings.Join(options, ",") + "\x00" + text
	if t, ok := en.cache[key]; ok {
		return t, nil
	}
	if err := en.e.spend(8 + len(text)/8); err != nil {
		return nil, err
	}
	cloned, err := en.base.Clone()
	if err != nil {
		return nil, templatef("failed to clone base template: %v", err)
	}
	for _, o := range options {
		cloned = cloned.Option(o) // validated by templateOptions: Option panics on anything else
	}
	t, err := cloned.Parse(text)
	if err != nil {
		return nil, templatef("failed to parse template %s: %v", clip(text), err)
	}
	instrument(t)
	if len(en.cache) < maxCachedTemplates {
		en.cache[key] = t
	}
	return t, nil
}

// instrument makes every execution of a parsed template pay for its loops and recursion, which
// text/template cannot bound otherwise ({{range 1000000000}} runs as written): each {{range}} pipeline
// passes its value through rangeFunc, which charges its length before the loop starts, and each template
// body (the main one, each {{define}}) starts with tickFunc, which counts invocations.
func instrument(t *template.Template) {
	for _, tt := range t.Templates() {
		if tt.Tree == nil || tt.Tree.Root == nil {
			continue
		}
		root := tt.Tree.Root
		tick := &parse.ActionNode{NodeType: parse.NodeAction, Pos: root.Pos, Pipe: &parse.PipeNode{
			NodeType: parse.NodePipe, Pos: root.Pos, Cmds: []*parse.CommandNode{call(tt.Tree, root.Pos, tickFunc)},
		}}
		root.Nodes = append([]parse.Node{tick}, root.Nodes...)
		instrumentList(tt.Tree, root)
	}
}

func instrumentList(tree *parse.Tree, list *parse.ListNode) {
	if list == nil {
		return
	}
	for _, n := range list.Nodes {
		switch n := n.(type) {
		case *parse.IfNode:
			instrumentList(tree, n.List)
			instrumentList(tree, n.ElseList)
		case *parse.WithNode:
			instrumentList(tree, n.List)
			instrumentList(tree, n.ElseList)
		case *parse.RangeNode:
			n.Pipe.Cmds = append(n.Pipe.Cmds, call(tree, n.Pos, rangeFunc))
			instrumentList(tree, n.List)
			instrumentList(tree, n.ElseList)
		case *parse.ListNode:
			instrumentList(tree, n)
		}
	}
}

func call(tree *parse.Tree, pos parse.Pos, name string) *parse.CommandNode {
	ident := parse.NewIdentifier(name).SetTree(tree).SetPos(pos)
	return &parse.CommandNode{NodeType: parse.NodeCommand, Pos: pos, Args: []parse.Node{ident}}
}

// limitWriter collects the output of one execution, failing past the bytes left for it.
type limitWriter struct {
	e    *expander
	b    strings.Builder
	left int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if len(p) > w.left-w.b.Len() {
		return 0, limitf(CheckTemplate, "the rendered output exceeds capreport's bound of %d bytes", maxAppBytes)
	}
	if err := w.e.spend(len(p) / 32); err != nil {
		return 0, err
	}
	return w.b.Write(p)
}

// clip shortens a template quoted in a message.
func clip(s string) string {
	const max = 200
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
