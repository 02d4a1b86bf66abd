import { describe, expect, it } from 'vitest';
import { captureScript } from '../../../src/snapshot/capture-script.ts';
import { commandMeantByFile } from '../../../src/snapshot/file-source.ts';

/** `kube FILE COMMAND...` and `run FILE COMMAND...` lines of the capture script: file → command. */
function scriptCommands(): [file: string, command: string][] {
  return [...captureScript().matchAll(/^\s*(?:kube|run) "?([\w.$-]+)"? (.+)$/gm)].map(([, file = '', command = '']) => [
    file.replace('$profile', 'karpenter'),
    command.replace(/^aws_ /, 'aws '),
  ]);
}

describe('commandMeantByFile', () => {
  it('names, for every file the capture script writes, the command the script ran', () => {
    const commands = scriptCommands();

    expect(commands.length).toBeGreaterThan(20);
    for (const [file, command] of commands) {
      expect({ file, command: command.startsWith(commandMeantByFile(file) ?? '?') }).toEqual({ file, command: true });
    }
    expect(commandMeantByFile('karpenter-logs.txt')).toBe('kubectl logs');
  });

  it('says nothing of a file whose name says nothing', () => {
    expect(commandMeantByFile('workloads.json')).toBeUndefined();
  });
});
