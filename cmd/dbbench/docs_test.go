package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// The README is the way in (issue 37): a front page a newcomer reads in ten minutes, whose recipes
// are reachable from its top, and a manual in docs/ that an index lists whole. These tests keep it
// so; TestReadmeExamples runs every example in them.

const (
	readmeMaxLines  = 250
	recipesLinkedBy = 40 // every recipe is linked from the README's first lines
)

// TestReadmeShape: the README stays short, and each recipe (a "###" under "## Recipes") is linked
// from its first recipesLinkedBy lines.
func TestReadmeShape(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > readmeMaxLines {
		t.Errorf("README.md has %d lines, at most %d: move the detail to a page of docs/", len(lines), readmeMaxLines)
	}
	top := strings.Join(lines[:min(recipesLinkedBy, len(lines))], "\n")
	var recipes []string
	in := false
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "## "):
			in = l == "## Recipes"
		case in && strings.HasPrefix(l, "### "):
			recipes = append(recipes, strings.TrimPrefix(l, "### "))
		}
	}
	if len(recipes) < 5 {
		t.Errorf("README.md has %d recipes under \"## Recipes\", want at least 5: %q", len(recipes), recipes)
	}
	for _, r := range recipes {
		if !strings.Contains(top, "(#"+slug(r)+")") {
			t.Errorf("recipe %q is not linked from the README's first %d lines (want a link to #%s)", r, recipesLinkedBy, slug(r))
		}
	}
}

// TestDocsIndex: docs/README.md lists every page of docs/.
func TestDocsIndex(t *testing.T) {
	index, err := os.ReadFile("../../docs/README.md")
	if err != nil {
		t.Fatal(err)
	}
	pages, _ := filepath.Glob("../../docs/*.md")
	for _, p := range pages {
		name := filepath.Base(p)
		if name != "README.md" && !strings.Contains(string(index), "]("+name+")") {
			t.Errorf("docs/README.md does not list %s", name)
		}
	}
}

// mdLink is a Markdown link's target (not an image's alt text: both end in "](").
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks: every relative link of the README, CONTRIBUTING.md and the pages of docs/ reaches a
// file of the repository, and a link to a heading (#anchor) a heading of that file, as GitHub names
// them. The docs were moved out of the README: a link left pointing at the old place fails here.
func TestDocsLinks(t *testing.T) {
	const root = "../.."
	files := []string{filepath.Join(root, "README.md"), filepath.Join(root, "CONTRIBUTING.md"), filepath.Join(root, "report", "SCHEMA.md")}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append(files, pages...)
	anchors := map[string][]string{}
	headings := func(path string) []string {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, _ := os.ReadFile(path)
		var out []string
		fence := false
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "```") {
				fence = !fence
			}
			if !fence && strings.HasPrefix(l, "#") {
				out = append(out, slug(strings.TrimLeft(l, "# ")))
			}
		}
		anchors[path] = out
		return out
	}
	checked := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name, _ := filepath.Rel(root, f)
		fence := false
		for n, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "```") {
				fence = !fence
			}
			if fence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(l, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				dest := f
				if path != "" {
					dest = filepath.Join(filepath.Dir(f), path)
					if _, err := os.Stat(dest); err != nil {
						t.Errorf("%s:%d: link to %s: no such file", name, n+1, target)
						continue
					}
				}
				checked++
				if anchor != "" && strings.HasSuffix(dest, ".md") && !slices.Contains(headings(dest), anchor) {
					t.Errorf("%s:%d: link to %s: no heading #%s there", name, n+1, target, anchor)
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("checked %d links: the walk missed the docs", checked)
	}
}

// slug is a heading's anchor as GitHub makes it: lower case, spaces to hyphens, punctuation other
// than hyphens and underscores dropped.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}
