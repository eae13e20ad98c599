/*
 * The Scheme every edit shares, loaded with the library (`../library.ts`): one undo group per edit, places in the
 * stack, and work done with nothing selected.
 *
 * A PDB error inside Script-Fu cannot be caught (neither `catch` nor `*error-hook*` sees it): it ends the request
 * with the undo group still open. Every edit therefore checks what it can before `gimp-image-undo-group-start`,
 * remembers the image whose group is open, and the next edit (or `br-edit-repair`, which the adapter sends after a
 * failed edit) closes a group left open, so a person at GIMP still sees one step per edit.
 */
export const EDIT_COMMON_SCHEME = `
(define br-open-group -1)

(define (br-edit-repair)
  (if (and (>= br-open-group 0) (= (car (gimp-image-is-valid br-open-group)) 1))
      (begin (gimp-context-pop) (gimp-image-undo-group-end br-open-group)))
  (set! br-open-group -1)
  #t)

; Runs thunk as one undo step of img, with the context saved and restored around it; answers thunk's value.
(define (br-edit img thunk)
  (br-edit-repair)
  (gimp-image-undo-group-start img)
  (gimp-context-push)
  (set! br-open-group img)
  (let ((r (thunk)))
    (set! br-open-group -1)
    (gimp-context-pop)
    (gimp-image-undo-group-end img)
    r))

(define (br-bad text) (br-fail "BAD_REQUEST" text))

; Refuses (before any change) a result of w x h pixels past max, the bridge's maxDocumentPixels.
(define (br-fits w h max)
  (if (> (* w h) max)
      (br-fail "PAYLOAD_TOO_LARGE" (string-append (number->string w) " " (number->string h) " " (number->string max)))))

(define (br-layers-of img parent)
  (vector->list (cadr (if (> parent 0) (gimp-item-get-children parent) (gimp-image-get-layers img)))))

(define (br-parent l) (let ((p (car (gimp-item-get-parent l)))) (if (> p 0) p 0)))

(define (br-index-of x xs) (let loop ((xs xs) (i 0)) (cond ((null? xs) -1) ((= (car xs) x) i) (else (loop (cdr xs) (+ i 1))))))

(define (br-without x xs) (cond ((null? xs) '()) ((= (car xs) x) (cdr xs)) (else (cons (car xs) (br-without x (cdr xs))))))

; Where a layer goes, as (parent position) with positions counted without moving (-1 for a new layer). kind:
; 0 above target, 1 below target, 2 at the top of group target, 3 top of the image, 4 bottom of the image.
(define (br-where img kind target moving)
  (cond ((= kind 2)
         (br-layer img target)
         (if (= (car (gimp-item-is-group target)) 0) (br-bad (string-append "Layer " (number->string target) " is not a group")))
         (list target 0))
        ((= kind 3) (list 0 0))
        ((= kind 4) (list 0 (length (br-without moving (br-layers-of img 0)))))
        (else
         (br-layer img target)
         (let* ((parent (br-parent target)) (i (br-index-of target (br-without moving (br-layers-of img parent)))))
           (list parent (if (= kind 0) i (+ i 1)))))))

; Layers whose pixels an edit changes must not be locked (the adapter answers BAD_REQUEST naming the lock).
(define (br-unlocked l)
  (if (= (car (gimp-item-get-lock-content l)) 1) (br-fail "LOCKED" (number->string l)))
  l)

; Runs thunk with nothing selected, then brings the selection (and the active layer it displaced) back.
(define (br-unselected img thunk)
  (if (= (car (gimp-selection-is-empty img)) 1)
      (thunk)
      (let* ((active (car (gimp-image-get-active-layer img)))
             (saved (car (gimp-selection-save img))))
        (gimp-selection-none img)
        (let ((r (thunk)))
          (gimp-image-select-item img CHANNEL-OP-REPLACE saved)
          (gimp-image-remove-channel img saved)
          (if (and (< (car (gimp-image-get-active-layer img)) 0) (= (car (gimp-item-is-valid active)) 1))
              (gimp-image-set-active-layer img active))
          r))))

; Fills a drawable (inside the selection) with a colour at opacity (0-100) in a layer mode.
(define (br-paint l r g b opacity mode)
  (gimp-context-set-foreground (list r g b))
  (gimp-context-set-opacity opacity)
  (gimp-context-set-paint-mode mode)
  (gimp-drawable-edit-fill l FILL-FOREGROUND))

(define (br-new-layer-type img) (+ 1 (* 2 (car (gimp-image-base-type img)))))
`;
