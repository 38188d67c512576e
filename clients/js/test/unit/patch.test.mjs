// RFC 6902's examples (appendix A) and the errors it requires, against the client's applier.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyPatch, PatchError } from '../../dist/index.js';

const cases = [
  ['A.1 add an object member', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux' }], { baz: 'qux', foo: 'bar' }],
  ['A.2 add an array element', { foo: ['bar', 'baz'] }, [{ op: 'add', path: '/foo/1', value: 'qux' }], { foo: ['bar', 'qux', 'baz'] }],
  ['A.3 remove an object member', { baz: 'qux', foo: 'bar' }, [{ op: 'remove', path: '/baz' }], { foo: 'bar' }],
  ['A.4 remove an array element', { foo: ['bar', 'qux', 'baz'] }, [{ op: 'remove', path: '/foo/1' }], { foo: ['bar', 'baz'] }],
  ['A.5 replace a value', { baz: 'qux', foo: 'bar' }, [{ op: 'replace', path: '/baz', value: 'boo' }], { baz: 'boo', foo: 'bar' }],
  ['A.6 move a value', { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } }],
  ['A.7 move an array element', { foo: ['all', 'grass', 'cows', 'eat'] }, [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    { foo: ['all', 'cows', 'eat', 'grass'] }],
  ['A.8 test a value: success', { baz: 'qux', foo: ['a', 2, 'c'] },
    [{ op: 'test', path: '/baz', value: 'qux' }, { op: 'test', path: '/foo/1', value: 2 }], { baz: 'qux', foo: ['a', 2, 'c'] }],
  ['A.10 add a nested member object', { foo: 'bar' }, [{ op: 'add', path: '/child', value: { grandchild: {} } }],
    { foo: 'bar', child: { grandchild: {} } }],
  ['A.11 ignore unrecognized elements', { foo: 'bar' }, [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }], { foo: 'bar', baz: 'qux' }],
  ['A.14 ~ escape ordering', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: 10 }], { '/': 9, '~1': 10 }],
  ['A.16 add an array value', { foo: ['bar'] }, [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }], { foo: ['bar', ['abc', 'def']] }],
  ['replace the whole document', { a: 1 }, [{ op: 'replace', path: '', value: [1] }], [1]],
  ['copy a value', { a: { b: 1 } }, [{ op: 'copy', from: '/a', path: '/c' }], { a: { b: 1 }, c: { b: 1 } }],
  ['objects compare whatever their key order', { a: { x: 1, y: 2 } }, [{ op: 'test', path: '/a', value: { y: 2, x: 1 } }], { a: { x: 1, y: 2 } }],
];

for (const [name, document, patch, expected] of cases) {
  test(name, () => {
    const before = JSON.stringify(document);
    assert.deepEqual(applyPatch(document, patch), expected);
    assert.equal(JSON.stringify(document), before, 'the document given is left as it was');
  });
}

const errors = [
  ['A.9 test a value: error', { baz: 'qux' }, [{ op: 'test', path: '/baz', value: 'bar' }]],
  ['A.12 add to a nonexistent target', { foo: 'bar' }, [{ op: 'add', path: '/baz/bat', value: 'qux' }]],
  ['A.15 comparing strings and numbers', { '/': 9, '~1': 10 }, [{ op: 'test', path: '/~01', value: '10' }]],
  ['remove a member that is not there', { a: 1 }, [{ op: 'remove', path: '/b' }]],
  ['replace a member that is not there', { a: 1 }, [{ op: 'replace', path: '/b', value: 2 }]],
  ['an index past the end', { a: [1] }, [{ op: 'add', path: '/a/2', value: 3 }]],
  ['a leading zero index', { a: [1, 2] }, [{ op: 'remove', path: '/a/01' }]],
  ['move into its own child', { a: { b: {} } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]],
  ['an unknown operation', { a: 1 }, [{ op: 'merge', path: '/a', value: 2 }]],
];

for (const [name, document, patch] of errors) {
  test(name, () => {
    assert.throws(() => applyPatch(document, patch), PatchError);
  });
}

test('a failing operation leaves nothing half applied', () => {
  const document = { a: 1 };
  assert.throws(() => applyPatch(document, [{ op: 'add', path: '/b', value: 2 }, { op: 'test', path: '/a', value: 9 }]), PatchError);
  assert.deepEqual(document, { a: 1 });
});
