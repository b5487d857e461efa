package github

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gh "github.com/google/go-github/v62/github"
)

// UpsertIssue keeps the scheduled report as one living issue: the newest
// open issue carrying labels whose body starts with body's marker gets the
// new title and body; without one, an issue is opened with the labels.
func (c *Client) UpsertIssue(ctx context.Context, owner, repo, title, body string, labels []string) (Result, error) {
	if err := checkRepo(owner, repo); err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(title) == "" {
		return Result{}, errors.New("the issue needs a title")
	}
	marker, err := Marker(body)
	if err != nil {
		return Result{}, err
	}
	where := owner + "/" + repo

	found, err := c.markedIssue(ctx, owner, repo, marker, labels)
	if err != nil {
		return Result{}, err
	}
	if found != nil {
		n := found.GetNumber()
		if sameBody(found.GetBody(), body) && found.GetTitle() == title {
			return Result{Action: Unchanged, ID: int64(n), URL: found.GetHTMLURL()}, nil
		}
		got, _, err := c.gh.Issues.Edit(ctx, owner, repo, n, &gh.IssueRequest{Title: gh.String(title), Body: gh.String(body)})
		if err != nil {
			return Result{}, wrap(fmt.Sprintf("update issue %s#%d", where, n), needIssues, err)
		}
		return Result{Action: Updated, ID: int64(got.GetNumber()), URL: got.GetHTMLURL()}, nil
	}
	req := &gh.IssueRequest{Title: gh.String(title), Body: gh.String(body)}
	if len(labels) > 0 {
		req.Labels = &labels
	}
	got, err := createIdempotent(ctx, c.retry,
		func(ctx context.Context) (*gh.Issue, error) {
			got, _, err := c.gh.Issues.Create(ctx, owner, repo, req)
			return got, err
		},
		func(ctx context.Context) (*gh.Issue, bool, error) {
			is, err := c.markedIssue(ctx, owner, repo, marker, labels)
			ok := err == nil && is != nil && sameBody(is.GetBody(), body) && is.GetTitle() == title
			return is, ok, err
		})
	if err != nil {
		return Result{}, wrap("create issue in "+where, needIssues, err)
	}
	return Result{Action: Created, ID: int64(got.GetNumber()), URL: got.GetHTMLURL()}, nil
}

// markedIssue searches the repository's open issues with the labels,
// newest first, for the first whose body starts with the marker; pull
// requests, which the endpoint also lists, are skipped.
func (c *Client) markedIssue(ctx context.Context, owner, repo, marker string, labels []string) (*gh.Issue, error) {
	opts := &gh.IssueListByRepoOptions{
		State: "open", Labels: labels, Sort: "created", Direction: "desc",
		ListOptions: gh.ListOptions{PerPage: perPage},
	}
	for pages := 0; ; pages++ {
		if pages == maxPages {
			return nil, fmt.Errorf("list open issues of %s/%s: more than %d pages", owner, repo, maxPages)
		}
		page, resp, err := c.gh.Issues.ListByRepo(ctx, owner, repo, opts)
		if err != nil {
			return nil, wrap(fmt.Sprintf("list open issues of %s/%s", owner, repo), "issues: read", err)
		}
		for _, is := range page {
			if !is.IsPullRequest() && firstLine(is.GetBody()) == marker {
				return is, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}
