"""Classroom 50 autograder for the coding-agent kit.

Place it at CLASSROOM/autograders/ASSIGNMENT/autograder.py in your classroom50 repository and give the assignment a
runtime with Node ({"node": "24"}). The runner starts it in the student's checkout; it grades the student's
starter/src against the course's own copy of the kit (its tests, not the ones in the student's repository) and
writes ./result.json. It exits 0 whenever grading ran, whatever the score: a non-zero exit means the grader broke.
"""
import os
import subprocess
import tempfile
from pathlib import Path

KIT = os.environ.get("KIT_REPO", "https://github.com/YOUR-ORG/build-a-coding-agent.git")  # the course's copy
KIT_REF = os.environ.get("KIT_REF", "main")  # the tag or branch the class was given
CHAPTERS = os.environ.get("KIT_CHAPTERS", "1-4")  # what counts for this assignment (week 2: chapters 1-4)

student = Path.cwd()
kit = Path(tempfile.mkdtemp()) / "kit"
# Full history: the grader finds the kit version each student started from in it.
subprocess.run(["git", "clone", "--quiet", "--branch", KIT_REF, KIT, str(kit)], check=True)
subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=kit, check=True)
# CLASSROOM, ASSIGNMENT, SUBMISSION_TAG, COMMIT_URL, RELEASE_URL and REVIEW_URL from the runner's environment go
# into result.json as they are; the graded commit's date becomes "datetime".
subprocess.run(
    ["npm", "run", "--silent", "grade", "--", "--repo", str(student), "--chapters", CHAPTERS,
     "--classroom50", str(student / "result.json"), "--logs", str(kit / "logs")],
    cwd=kit,
    check=True,
)
