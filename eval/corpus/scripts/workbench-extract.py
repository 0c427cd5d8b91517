#!/usr/bin/env python3
"""WorkBench (olly-styles/WorkBench) recorded runs -> one JSON line per run, with the benchmark's own verdict.

Usage: python3 workbench-extract.py GIT_DIR COMMIT > runs.jsonl
       python3 workbench-extract.py GIT_DIR COMMIT --cut-check runs.jsonl stops.json
         (does the checker still pass each stopped run on the calls that ran before the stop? eval/run-wide-check.ts)
Needs pandas (WorkBench's checker is written with it): python3 -m venv v && v/bin/pip install pandas.
Called by src-workbench.mjs; the corpus build is otherwise Node only.

Each results CSV (data/results/<domain>/<model>_<all|domains>_<time>.csv) holds, per query, the LangChain
structured-chat agent's `full_response` (a Python repr of its output dict, with `intermediate_steps`: pairs of
AgentAction and the tool's observation), the `function_calls` the benchmark replays, and the run's `error`.
The verdict is WorkBench's `is_correct` (src/evals/utils.py), called the way its `calculate_metrics` calls it
(newlines in actions escaped first): the predicted actions are replayed on the sandbox and the resulting state is
compared with the ground truth's. The repr is read with `ast` (no eval): pandas objects in observations become text.
"""
import ast
import csv
import io
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import types

csv.field_size_limit(10**9)
GIT_DIR, COMMIT = sys.argv[1], sys.argv[2]


def stub_langchain():
    """The checker's module imports LangChain for its inference helpers; the checker itself never uses it."""
    class Anything:
        def __init__(self, *args, **kwargs):
            pass

        def __call__(self, *args, **kwargs):
            return self

    names = ['langchain_openai', 'langchain_community', 'langchain_community.chat_models',
             'langchain_community.chat_models.anthropic', 'langchain_community.chat_models.anyscale', 'langchain',
             'langchain.agents', 'langchain.tools', 'langchain.agents.agent_toolkits', 'langchain_core', 'langchain_core.tools']
    for name in names:
        sys.modules[name] = types.ModuleType(name)
    sys.modules['langchain_openai'].ChatOpenAI = Anything
    sys.modules['langchain_openai'].OpenAI = Anything
    sys.modules['langchain_community.chat_models.anthropic'].ChatAnthropic = Anything
    sys.modules['langchain_community.chat_models.anyscale'].ChatAnyscale = Anything
    sys.modules['langchain.agents'].initialize_agent = Anything
    sys.modules['langchain.agents'].AgentType = Anything

    # WorkBench's tools are `@tool("email.search_emails", return_direct=False)` functions whose `.func` the checker calls.
    def tool(*args, **kwargs):
        if args and callable(args[0]) and not kwargs:
            function = args[0]
            function.func, function.name = function, function.__name__
            return function

        def decorate(function):
            function.func, function.name = function, args[0] if args else function.__name__
            return function
        return decorate
    sys.modules['langchain.tools'].tool = tool
    sys.modules['langchain_core.tools'].tool = tool


def literal(node):
    """A node of the output repr as JSON data. Calls other than AgentAction (pandas Timestamp, array, dtype) become text."""
    if isinstance(node, ast.Constant):
        value = node.value
        return value if not isinstance(value, float) or value == value else None
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        return {str(literal(key)): literal(value) for key, value in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
        return -node.operand.value
    if isinstance(node, ast.Name):
        return {'nan': None, 'None': None, 'True': True, 'False': False}.get(node.id, node.id)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == 'AgentAction':
        return {keyword.arg: literal(keyword.value) for keyword in node.keywords}
    return ast.unparse(node)


def checker():
    """WorkBench's `is_correct` and its ground truth per (domain, query), from the snapshot, in a scratch directory."""
    workdir = tempfile.mkdtemp(prefix='workbench-')
    archive = subprocess.run(['git', f'--git-dir={GIT_DIR}', 'archive', COMMIT, 'src', 'data/processed', 'data/raw'],
                             check=True, capture_output=True).stdout
    tarfile.open(fileobj=io.BytesIO(archive)).extractall(workdir)
    os.chdir(workdir)
    sys.path.insert(0, workdir)
    stub_langchain()
    import pandas as pd
    from src.evals.utils import convert_agent_action_to_function_call, is_correct

    answers = {}
    for name in os.listdir('data/processed/queries_and_answers'):
        table = pd.read_csv(os.path.join('data/processed/queries_and_answers', name), dtype=str)
        domain = name.replace('_queries_and_answers.csv', '')
        answers[domain] = {query: ast.literal_eval(answer) for query, answer in zip(table['query'], table['answer'])}
    return is_correct, convert_agent_action_to_function_call, answers


def escaped(actions):
    """As WorkBench's calculate_metrics hands actions to is_correct."""
    return [action.replace('\n', '\\n') for action in actions]


def cut_check(runs_file, stops_file):
    """For each stopped run (stops_file: [{path, row, executed: [step index, ...]}]): does the checker still pass on
    the steps loopguard let run before its stop? One line per run."""
    runs_file, stops_file = os.path.abspath(runs_file), os.path.abspath(stops_file)
    is_correct, function_call_of, answers = checker()
    runs = {}
    with open(runs_file) as lines:
        for line in lines:
            record = json.loads(line)
            runs[(record['path'], record['row'])] = record
    with open(stops_file) as stops:
        for stop in json.load(stops):
            record = runs[(stop['path'], stop['row'])]
            steps = [record['steps'][index] for index in stop['executed']]
            # WorkBench's own conversion of an agent action to the call it replays.
            actions = [function_call_of(types.SimpleNamespace(tool=step['tool'], tool_input=step['args']))
                       for step in steps if step['tool'] and isinstance(step['args'], dict)]
            passed = bool(is_correct(escaped(actions), escaped(answers[record['domain']][record['query']]), ''))
            print(json.dumps({'path': stop['path'], 'row': stop['row'], 'passes': passed}))


def main():
    is_correct, _, answers = checker()

    listing = subprocess.run(['git', f'--git-dir={GIT_DIR}', 'ls-tree', '-r', '--name-only', COMMIT, 'data/results'],
                             check=True, capture_output=True, text=True).stdout.split()
    for path in sorted(listing):
        domain = path.split('/')[2]
        model, setting = os.path.basename(path).split('_')[0:2]
        text = subprocess.run(['git', f'--git-dir={GIT_DIR}', 'show', f'{COMMIT}:{path}'],
                              check=True, capture_output=True, text=True).stdout
        for row_number, row in enumerate(csv.DictReader(io.StringIO(text))):
            error = row.get('error') or ''
            correct = bool(is_correct(escaped(ast.literal_eval(row['function_calls'])), escaped(answers[domain][row['query']]), error))
            steps, output = [], None
            if row['full_response']:
                response = literal(ast.parse(row['full_response'], mode='eval').body)
                output = response.get('output')
                for action, observation in response.get('intermediate_steps') or []:
                    steps.append({'tool': action.get('tool'), 'args': action.get('tool_input'), 'observation': observation})
            print(json.dumps({'path': path, 'row': row_number, 'domain': domain, 'model': model, 'setting': setting,
                              'query': row['query'], 'correct': correct, 'error': error, 'output': output, 'steps': steps}))


if len(sys.argv) > 3 and sys.argv[3] == '--cut-check':
    cut_check(sys.argv[4], sys.argv[5])
else:
    main()
