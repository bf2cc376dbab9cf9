/** A QuickPick whose items are live results of the server's `nano-brain/search` request. */

import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import { SEARCH_REQUEST, searchParams } from "../core/commandArgs";
import { type SearchHit, parseSearchResponse, toPickItem } from "../core/search";
import { errorText } from "../log";

const DEBOUNCE_MS = 150;

interface Item extends vscode.QuickPickItem {
  id?: string;
}

export function pickFromSearch(
  client: LanguageClient,
  root: string,
  options: { title: string; placeholder: string; initial?: string },
): Promise<SearchHit | undefined> {
  const qp = vscode.window.createQuickPick<Item>();
  qp.title = options.title;
  qp.placeholder = options.placeholder;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  const hits = new Map<string, SearchHit>();
  let timer: NodeJS.Timeout | undefined;
  let inflight: vscode.CancellationTokenSource | undefined;

  const search = async (value: string): Promise<void> => {
    inflight?.cancel();
    const query = value.trim();
    if (query === "") {
      qp.items = [];
      qp.busy = false;
      return;
    }
    const source = new vscode.CancellationTokenSource();
    inflight = source;
    qp.busy = true;
    try {
      const response = await client.sendRequest(SEARCH_REQUEST, searchParams(query, root), source.token);
      if (source.token.isCancellationRequested) return;
      hits.clear();
      const found = parseSearchResponse(response);
      found.forEach((hit) => hits.set(hit.id, hit));
      qp.items =
        found.length > 0
          ? found.map((hit) => ({ ...toPickItem(hit), alwaysShow: true }))
          : [{ label: "$(info) No memory matches", alwaysShow: true }];
    } catch (error) {
      if (source.token.isCancellationRequested) return;
      qp.items = [{ label: `$(error) Search failed: ${errorText(error)}`, alwaysShow: true }];
    } finally {
      if (inflight === source) {
        qp.busy = false;
        inflight = undefined;
      }
      source.dispose();
    }
  };

  return new Promise((resolve) => {
    let result: SearchHit | undefined;
    qp.onDidChangeValue((value) => {
      clearTimeout(timer);
      timer = setTimeout(() => void search(value), DEBOUNCE_MS);
    });
    qp.onDidAccept(() => {
      const id = qp.selectedItems[0]?.id;
      if (id === undefined) return;
      result = hits.get(id);
      qp.hide();
    });
    qp.onDidHide(() => {
      clearTimeout(timer);
      inflight?.cancel();
      qp.dispose();
      resolve(result);
    });
    qp.show();
    if (options.initial) {
      qp.value = options.initial;
      void search(options.initial);
    }
  });
}
