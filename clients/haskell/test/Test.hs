{-# LANGUAGE OverloadedStrings #-}
-- | The Haskell client's unit tests (clients/haskell/build test, run from the repository root): RowSum
-- against dataset/testdata/vectors.json and the C baseline's, the person file and its damaged forms,
-- the linked LMDB's version, and every workload of every variant on the 1,000-person test file.
module Test (main) where

import Control.Exception (SomeException, try, bracket)
import Control.Monad
import Data.Aeson (Value (..), decodeFileStrict')
import qualified Data.Aeson.KeyMap as KM
import qualified Data.ByteString as B
import qualified Data.ByteString.Char8 as BC
import Data.IORef
import Data.List (isPrefixOf)
import qualified Data.Text.Encoding as TE
import Foreign
import Foreign.C (CSize, CInt)
import System.Directory (createDirectory, doesDirectoryExist, doesFileExist, getTemporaryDirectory, removeDirectoryRecursive)
import System.Exit (exitFailure)
import System.FilePath ((</>))
import System.IO (hPutStrLn, stderr)
import Text.Printf (printf)

import qualified Lmdb
import Persons
import Store

testFile :: FilePath
testFile = "dataset/testdata/persons-1000-seed1.bin"

main :: IO ()
main = do
  failures <- newIORef (0 :: Int)
  let expect what ok = unless ok $ do
        hPutStrLn stderr ("FAIL " ++ what)
        modifyIORef' failures (+ 1)
  vectors expect
  p <- readPersons testFile >>= either fail pure
  personsFile expect p
  damaged expect
  linked expect
  forM_ [(Unsafe, False), (Unsafe, True), (Safe, False), (Safe, True), (CLoops, False)] $ \(ffi, copy) ->
    session expect p (Config ffi copy (64 * 2 ^ (20 :: Int)))
  n <- readIORef failures
  if n == 0 then hPutStrLn stderr "clients/haskell tests: all passed" else exitFailure

rowSumBS :: B.ByteString -> B.ByteString -> Word8 -> IO Word64
rowSumBS e n a = B.useAsCStringLen e $ \(ep, el) -> B.useAsCStringLen n $ \(np, nl) ->
  rowSum (castPtr ep) el (castPtr np) nl a

vectors :: (String -> Bool -> IO ()) -> IO ()
vectors expect = do
  Just (Object o) <- decodeFileStrict' "dataset/testdata/vectors.json"
  let Just (Array rows) = KM.lookup "rowsum" o
  expect "six or more RowSum vectors" (length rows >= 6)
  forM_ rows $ \(Object r) -> do
    let str k = case KM.lookup k r of Just (String s) -> TE.encodeUtf8 s; _ -> error "vector field"
        Just (Number a) = KM.lookup "age" r
    got <- rowSumBS (str "email") (str "name") (truncate a)
    expect ("RowSum " ++ show (str "email")) (BC.pack (printf "%016x" got) == str "sum")

sumOf :: Persons -> [Int] -> IO Word64
sumOf p is = sum <$> forM is (\i -> do
  (e, el) <- email p i
  (n, nl) <- name p i
  a <- age p i
  rowSum e el n nl a)

personsFile :: (String -> Bool -> IO ()) -> Persons -> IO ()
personsFile expect p = do
  expect "1000 persons, seed 1" (pCount p == 1000 && pSeed p == 1)
  (e, el) <- email p 0
  e0 <- B.packCStringLen (castPtr e, el)
  expect "person 0's email" (e0 == "nina.dubois.0@inbox.test")
  allSum <- sumOf p [0 .. 999]
  expect "the whole dataset's sum" (allSum == 0x9a8d33d6f43e47cd && allSum == pChecksum p)
  first10 <- sumOf p [0 .. 9]
  expect "the first 10 in file order" (first10 == 0xe27dc92647c5e680)
  sorted <- mapM (fmap fromIntegral . peekElemOff (pSorted p)) [0 .. 9]
  s10 <- sumOf p sorted
  expect "the first 10 in email order" (s10 == 0x2f9e6b50f7811139)
  forM_ [0 .. 999] $ \i -> do
    (e', el') <- email p i
    (n, nl) <- name p i
    a <- age p i
    h <- rowSum e' el' n nl a
    c <- Lmdb.cRowSum e' (fromIntegral el' :: CSize) n (fromIntegral nl) (fromIntegral a :: CInt)
    expect ("RowSum equals the C baseline's, person " ++ show i) (h == c)

damaged :: (String -> Bool -> IO ()) -> IO ()
damaged expect = do
  good <- B.readFile testFile
  let set at bs = B.take at good <> bs <> B.drop (at + B.length bs) good
      cases = [ ("short", B.init good), ("magic", set 0 "X"), ("email offsets", set 68 "\255")
              , ("sorted index", set (64 + 8 * 1001) (B.pack [0x88, 0x13, 0, 0])), ("empty", "") ]
  forM_ cases $ \(what, b) -> do
    r <- parsePersons b
    expect ("a damaged person file is refused: " ++ what) (either (const True) (const False) r)

linked :: (String -> Bool -> IO ()) -> IO ()
linked expect = do
  (v, s) <- Lmdb.version
  pc <- BC.lines <$> B.readFile "clients/native/build/lmdb.pc"
  let want = [BC.unpack (B.drop 9 l) | l <- pc, "Version: " `B.isPrefixOf` l]
  expect ("the linked LMDB is the vendored one: " ++ s) (want == [v] && v /= "0.9.24" && "LMDB " `isPrefixOf` s)

session :: (String -> Bool -> IO ()) -> Persons -> Config -> IO ()
session expect p cfg = do
  tmp <- getTemporaryDirectory
  let dir = tmp </> ("dbbench-haskell-test-" ++ show (cfgFfi cfg) ++ show (cfgCopy cfg))
      what s = s ++ " (" ++ show (cfgFfi cfg) ++ ", copy " ++ show (cfgCopy cfg) ++ ")"
  _ <- try (removeDirectoryRecursive dir) :: IO (Either SomeException ())
  createDirectory dir
  bracket (openStore p dir cfg) closeStore $ \s -> do
    l <- load s
    expect (what "load stores 1000") (tRows l == 1000)
    t <- scan s 1000
    expect (what "scan all") (tRows t == 1000 && tSum t == 0x9a8d33d6f43e47cd)
    t10 <- scan s 10
    expect (what "scan 10 in email order") (tRows t10 == 10 && tSum t10 == 0x2f9e6b50f7811139)
    let keys = [0, 999, 5, 5] :: [Int32]
    want <- sumOf p (map fromIntegral keys)
    (rows, acc, lat) <- withArray keys $ \idx -> allocaArray 4 $ \lat -> do
      pokeArray lat [-1, -1, -1, -1]
      (r, a) <- lookups s idx 4 lat
      (,,) r a <$> peekArray 4 lat
    expect (what "lookup") (rows == 4 && acc == want && all (>= 0) lat)
    (ins, none) <- insert s 10 False
    expect (what "insert reads back the first 10") (tRows ins == 10 && tSum ins == 0xe27dc92647c5e680 && tNs ins > 0 && none == Nothing)
    (ins2, kept) <- insert s 10 True
    keptFile <- maybe (pure False) (doesFileExist . (</> "data.mdb")) kept
    expect (what "insert with keep leaves its environment") (tSum ins2 == tSum ins && keptFile)
    again <- try (insert s 1 True) :: IO (Either SomeException (Tally, Maybe FilePath))
    expect (what "a second insert before drop is refused") (either (const True) (const False) again)
    dropKept s
    gone <- maybe (pure False) (fmap not . doesDirectoryExist) kept
    expect (what "drop removes the kept environment") gone
    dropAgain <- try (dropKept s) :: IO (Either SomeException ())
    expect (what "drop with nothing kept is refused") (either (const True) (const False) dropAgain)
    (wall, rs) <- concurrent s 3 1000
    expect (what "concurrent") (length rs == 3 && all (\r -> tRows r == 1000 && tSum r == 0x9a8d33d6f43e47cd) rs
                                && wall >= maximum (map tNs rs))
  removeDirectoryRecursive dir

