package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/capreport/capreport/cmd/capreport/internal/cmdutil"
)

// TestEveryCommandHasWorkingExamples walks the command tree: every
// command a user runs has --help examples, and every flag an example
// uses exists on that command and takes the value shown.
func TestEveryCommandHasWorkingExamples(t *testing.T) {
	root := newRootCmd(newFactory(&cmdutil.IOStreams{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}), nil)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Hidden || c.Name() == "help" || strings.HasPrefix(c.CommandPath(), "capreport completion") {
			return
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no --help examples", c.CommandPath())
		}
		for _, line := range exampleCommands(c.Example) {
			checkExample(t, root, line)
		}
	}
	walk(root)
}

// exampleCommands joins continued lines and keeps each capreport command
// up to a pipe or a redirection.
func exampleCommands(example string) [][]string {
	var out [][]string
	joined := strings.ReplaceAll(example, "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		if i := strings.IndexAny(line, "|>"); i >= 0 {
			line = line[:i]
		}
		fields := strings.Fields(line)
		for i, f := range fields {
			if f == "capreport" {
				out = append(out, fields[i+1:])
				break
			}
		}
	}
	return out
}

func checkExample(t *testing.T, root *cobra.Command, args []string) {
	t.Helper()
	c, rest, err := root.Find(args)
	if err != nil {
		t.Errorf("example capreport %s: %v", strings.Join(args, " "), err)
		return
	}
	if err := c.ParseFlags(rest); err != nil {
		t.Errorf("example capreport %s: %v", strings.Join(args, " "), err)
	}
}
