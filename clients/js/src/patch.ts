/**
 * RFC 6902 JSON Patch, applied to a copy of a document. Written here rather than taken from
 * a library: the six operations fit in a page, and the client stays free of runtime
 * dependencies and small enough for a browser bundle.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface PatchOperation {
  op: 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';
  path: string;
  from?: string;
  value?: JsonValue;
}

/** A patch that does not apply to the document it was given. */
export class PatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PatchError';
  }
}

/** The reference tokens of an RFC 6901 pointer. */
function tokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (pointer[0] !== '/') throw new PatchError(`'${pointer}' is not a JSON pointer`);
  return pointer.substring(1).split('/').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function isContainer(value: unknown): value is JsonValue[] | { [key: string]: JsonValue } {
  return typeof value === 'object' && value !== null;
}

function index(array: JsonValue[], token: string, forAdd: boolean): number {
  if (forAdd && token === '-') return array.length;
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`'${token}' is not an array index`);
  const i = Number(token);
  if (i > array.length || (!forAdd && i === array.length)) throw new PatchError(`index ${i} is out of bounds`);
  return i;
}

/** The container that holds the pointer's last token, and that token. */
function parent(document: JsonValue, path: string): [JsonValue[] | { [key: string]: JsonValue }, string] {
  const all = tokens(path);
  const last = all.pop() as string;
  let node: JsonValue = document;
  for (const token of all) {
    if (Array.isArray(node)) node = node[index(node, token, false)];
    else if (isContainer(node) && Object.prototype.hasOwnProperty.call(node, token)) node = node[token];
    else throw new PatchError(`'${path}' does not exist`);
  }
  if (!isContainer(node)) throw new PatchError(`'${path}' does not exist`);
  return [node, last];
}

function get(document: JsonValue, path: string): JsonValue {
  if (path === '') return document;
  const [container, last] = parent(document, path);
  if (Array.isArray(container)) return container[index(container, last, false)];
  if (!Object.prototype.hasOwnProperty.call(container, last)) throw new PatchError(`'${path}' does not exist`);
  return container[last];
}

function equal(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => equal(v, b[i]));
  if (isContainer(a) && isContainer(b) && !Array.isArray(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length
      && keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && equal(a[k], b[k]));
  }
  return false;
}

function clone<T extends JsonValue | undefined>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

function add(document: JsonValue, path: string, value: JsonValue): JsonValue {
  if (path === '') return value;
  const [container, last] = parent(document, path);
  if (Array.isArray(container)) container.splice(index(container, last, true), 0, value);
  else container[last] = value;
  return document;
}

function remove(document: JsonValue, path: string): JsonValue {
  if (path === '') throw new PatchError('the whole document cannot be removed');
  const [container, last] = parent(document, path);
  if (Array.isArray(container)) container.splice(index(container, last, false), 1);
  else if (Object.prototype.hasOwnProperty.call(container, last)) delete container[last];
  else throw new PatchError(`'${path}' does not exist`);
  return document;
}

/**
 * Applies a patch to a copy of a document: all of it, or nothing (a {@link PatchError}).
 */
export function applyPatch(document: JsonValue, patch: PatchOperation[]): JsonValue {
  if (!Array.isArray(patch)) throw new PatchError('a patch is an array of operations');
  let result = clone(document);
  for (const operation of patch) {
    if (!isContainer(operation) || typeof operation.path !== 'string') throw new PatchError('an operation has a path');
    const { op, path } = operation;
    const needsValue = op === 'add' || op === 'replace' || op === 'test';
    if (needsValue && !('value' in operation)) throw new PatchError(`'${op}' at '${path}' has no value`);
    const value = operation.value as JsonValue;
    switch (op) {
      case 'add':
        result = add(result, path, clone(value));
        break;
      case 'remove':
        result = remove(result, path);
        break;
      case 'replace':
        get(result, path);
        result = add(path === '' ? result : remove(result, path), path, clone(value));
        break;
      case 'move': {
        if (typeof operation.from !== 'string') throw new PatchError(`'move' to '${path}' has no from`);
        if (path.startsWith(operation.from + '/')) throw new PatchError(`'${operation.from}' cannot move into itself`);
        const moved = get(result, operation.from);
        result = add(remove(result, operation.from), path, moved);
        break;
      }
      case 'copy':
        if (typeof operation.from !== 'string') throw new PatchError(`'copy' to '${path}' has no from`);
        result = add(result, path, clone(get(result, operation.from)));
        break;
      case 'test':
        if (!equal(get(result, path), value)) throw new PatchError(`test of '${path}' failed`);
        break;
      default:
        throw new PatchError(`'${String(op)}' is not an operation`);
    }
  }
  return result;
}
