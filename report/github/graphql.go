package github

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// minimizeMutation hides a comment as outdated; GitHub shows it folded.
const minimizeMutation = `mutation($id: ID!) {
  minimizeComment(input: {subjectId: $id, classifier: OUTDATED}) {
    minimizedComment { isMinimized }
  }
}`

type graphqlRequest struct {
	Query     string         `json:"query"`
	Variables map[string]any `json:"variables"`
}

type graphqlResponse struct {
	Data struct {
		MinimizeComment *struct {
			MinimizedComment struct {
				IsMinimized bool `json:"isMinimized"`
			} `json:"minimizedComment"`
		} `json:"minimizeComment"`
	} `json:"data"`
	Errors []struct {
		Type    string `json:"type"`
		Message string `json:"message"`
	} `json:"errors"`
}

// minimize hides one comment, by its GraphQL node id, as OUTDATED.
func (c *Client) minimize(ctx context.Context, nodeID string) error {
	if nodeID == "" {
		return errors.New("the comment has no node_id")
	}
	req, err := c.gh.NewRequest("POST", c.graphqlURL, &graphqlRequest{
		Query:     minimizeMutation,
		Variables: map[string]any{"id": nodeID},
	})
	if err != nil {
		return err
	}
	var out graphqlResponse
	if _, err := c.gh.Do(ctx, req, &out); err != nil {
		return err
	}
	if len(out.Errors) > 0 {
		msgs := make([]string, len(out.Errors))
		for i, e := range out.Errors {
			if e.Type == "FORBIDDEN" {
				// GraphQL answers 200 and names the refusal in the body.
				return &PermissionError{Need: needPullRequests, Message: e.Message}
			}
			msgs[i] = e.Message
		}
		return fmt.Errorf("GraphQL: %s", strings.Join(msgs, "; "))
	}
	if out.Data.MinimizeComment == nil || !out.Data.MinimizeComment.MinimizedComment.IsMinimized {
		return errors.New("GraphQL: the comment was not minimized")
	}
	return nil
}
